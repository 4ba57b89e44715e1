package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestMain runs the receiver when the harness re-executes the test binary
// as its child process.
func TestMain(m *testing.M) {
	if os.Getenv(envChild) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
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
