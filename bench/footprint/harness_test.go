package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestHarness builds switchboard and the hello-world and runs every
// measurement with few runs: the report has its three tables, the idle
// agent was measured (on Linux) and stopped cleanly.
func TestHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the commands")
	}
	var out, errOut bytes.Buffer
	code := run(context.Background(), []string{"-runs", "2", "-settle", "0s", "-dir", t.TempDir()}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	want := []string{"== start", "hello ", "switchboard version", "switchboard send", "== binary size"}
	if idleSupported {
		want = append(want, "== idle agent")
	}
	for _, w := range want {
		if !strings.Contains(out.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, out.String())
		}
	}
}

// TestUsage checks that bad flags are usage errors (exit 2).
func TestUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-runs", "0"}, {"-settle", "-1s"}, {"extra"}, {"-nosuchflag"}} {
		var out, errOut bytes.Buffer
		if code := run(context.Background(), args, &out, &errOut); code != 2 {
			t.Errorf("run(%q) = %d, want 2 (stderr %q)", args, code, errOut.String())
		}
	}
}
