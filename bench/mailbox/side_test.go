package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHarnessNanobotMode runs the side-by-side mode with a few messages:
// nanobot's algorithm in Python writes the tree and drains a copy, the
// switchboard binary (built once by TestMain) drains another with fsync on
// and off, the raw renames the rest; every drain is checked by the
// harness, and the JSON file holds every contender with a rate and its
// ratios. Without python3 it skips, except on CI (CI=true), where .ci/run
// installs it and its absence is a failure.
func TestHarnessNanobotMode(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("python3 not found (%v); .ci/run installs it (apt-get install -y python3)", err)
		}
		t.Skipf("python3 not found (%v): the nanobot mode runs nanobot's algorithm with it; install Python 3 to run this test", err)
	}
	root := t.TempDir()
	jsonFile := filepath.Join(t.TempDir(), "side.json")
	var out, errOut bytes.Buffer
	code := run([]string{"-mode", "nanobot", "-n", "12", "-rounds", "2", "-root", root, "-json", jsonFile, "-timeout", "2m",
		"-switchboard", switchboardBin},
		&out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"== write side by side", "== drain side by side", "nanobot poll()+mark_processed()",
		"switchboard recv --count N", "fsync per 64 renames", "x nanobot"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	data, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var got sideJSON
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	want := map[string]bool{
		"write/nanobot": true, "write/nanobot-process": true, "write/switchboard-fsync": true,
		"write/switchboard-nofsync": true, "write/rawwrite-fsync": true, "write/rawwrite-nofsync": true,
		"drain/nanobot": true, "drain/nanobot-process": true, "drain/switchboard-fsync": true,
		"drain/switchboard-nofsync": true, "drain/raw-1": true, "drain/raw-64": true, "drain/raw-0": true, "drain/rawread-0": true,
	}
	for _, res := range got.Results {
		key := res.Side + "/" + res.Key
		if !want[key] {
			t.Errorf("unexpected result %s", key)
			continue
		}
		delete(want, key)
		if res.N != 12 || len(res.Seconds) != 2 || res.PerSec <= 0 || res.VsNanobot <= 0 || len(res.VsNanobotRounds) != 2 {
			t.Errorf("%s: n %d, %d rounds, %.0f msg/s, %.2fx nanobot", key, res.N, len(res.Seconds), res.PerSec, res.VsNanobot)
		}
		if res.Kind == kindSwitchboard && (res.RawPeer == "" || res.VsRaw <= 0) {
			t.Errorf("%s: no ratio to its raw peer (%q, %.2f)", key, res.RawPeer, res.VsRaw)
		}
	}
	for key := range want {
		t.Errorf("no result for %s", key)
	}
	if got.FileBytes <= 1024 || got.Rounds != 2 {
		t.Errorf("file bytes %d, rounds %d", got.FileBytes, got.Rounds)
	}
	left, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("left behind in -root: %v", left)
	}
}

// TestNanobotModeUsage checks the side-by-side mode's flag checks.
func TestNanobotModeUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"-mode", "nanobot", "-rounds", "0"}, {"-mode", "latency", "-json", "x.json"}, {"-switchboard", "/bin/true"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 2 {
			t.Errorf("run(%q) = %d, want 2 (stderr %q)", args, code, errOut.String())
		}
	}
}

// TestNanobotModeNoPython checks that a missing interpreter is a clear
// error, not a crash halfway.
func TestNanobotModeNoPython(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	code := run([]string{"-mode", "nanobot", "-n", "2", "-root", t.TempDir(), "-python", "no-such-python-here"}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "no-such-python-here not found") {
		t.Errorf("exit %d, stderr %q", code, errOut.String())
	}
}
