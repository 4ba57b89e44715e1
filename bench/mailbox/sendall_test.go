package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestHarnessSendMode runs the send mode to a few agents: the harness
// times the switchboard binary TestMain built, registers the agents, runs send --to all
// (checking that every agent got every copy) beside the raw peers, and
// prints one row per durability; nothing is left behind in -root.
func TestHarnessSendMode(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	var out, errOut bytes.Buffer
	code := run([]string{"-mode", "send", "-n", "5", "-root", root, "-switchboard", switchboardBin}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"== send --to all", "raw at once", "switchboard version"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, fsync := range []string{"on", "off"} {
		row := regexp.MustCompile(`(?m)^ *5 +fsync ` + fsync + ` +[0-9.]+ ms +[0-9.]+ ms +[0-9.]+x +[0-9.]+ ms +[0-9.]+ ms *$`)
		if !row.MatchString(out.String()) {
			t.Errorf("no row for 5 agents, fsync %s:\n%s", fsync, out.String())
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
