package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// switchboardBin is the switchboard binary TestMain builds once for the
// tests that time it (-switchboard), instead of a build in each.
var switchboardBin string

// raceFlags is -race when the tests run with it (race_test.go): the build
// then reuses the packages go test compiled, instead of compiling the
// whole program a second time.
var raceFlags []string

// TestMain runs the receiver when the harness re-executes the test binary
// as its child process; otherwise it builds switchboard and runs the tests.
func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	dir, err := os.MkdirTemp("", "bench-mailbox-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	switchboardBin = filepath.Join(dir, "switchboard")
	build := exec.Command("go", append(append([]string{"build"}, raceFlags...), "-o", switchboardBin, switchboardPackage)...)
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build switchboard:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestHarnessAllModes runs every mode with a few messages across two real
// processes: it proves the harness works end to end (every message
// received once, tables printed) and leaves nothing behind in -root.
func TestHarnessAllModes(t *testing.T) {
	root := t.TempDir()
	var out, errOut bytes.Buffer
	code := run([]string{"-mode", "all", "-n", "4", "-gap", "0", "-root", root, "-timeout", "2m"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"== latency", "== throughput", "== backlog", "fsync on", "fsync off"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	left, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("left behind in -root: %v", left)
	}
}

// TestHarnessUsage checks that bad flags are usage errors (exit 2).
func TestHarnessUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-mode", "nope"}, {"-fsync", "maybe"}, {"-n", "-1"}, {"extra"}, {"-nosuchflag"},
	} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 2 {
			t.Errorf("run(%q) = %d, want 2 (stderr %q)", args, code, errOut.String())
		}
	}
}

// TestChildUsage checks the receiver's own argument checks.
func TestChildUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{childFlag, "-n", "0"}, &out, &errOut); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(errOut.String(), "-root and -n are required") {
		t.Errorf("stderr %q", errOut.String())
	}
}
