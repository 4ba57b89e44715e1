package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain runs the raw processes when the bench starts the test binary
// as one of them.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == childArg {
		if err := runChild(context.Background(), os.Args[2:]); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The bench runs end to end on a few agents on every backend: it builds
// switchboard, starts the agents and the raw processes, and prints every
// figure; every agent listens, gets the broadcast and stops cleanly. No
// figure is held to its target here (that is the bench's job, on a
// thousand agents): a missed one only shows in the error.
func TestHarnessSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds switchboard and starts processes and NATS servers")
	}
	var out bytes.Buffer
	err := run(context.Background(), []string{"-n", "4", "-backend", "all", "-idle", "1s", "-warmup", "0s",
		"-sends", "3", "-gap", "0s", "-root", t.TempDir()}, &out, io.Discard)
	if err != nil && !errors.Is(err, errMissed) {
		t.Fatalf("%v\n%s", err, out.String())
	}
	report := out.String()
	for _, backend := range []string{"folder root", "one NATS server", "a cluster of 3 NATS servers"} {
		assert.Contains(t, report, backend)
	}
	for _, want := range []string{"4 of 4 listening", "raw: 4 × `switchboard version`", "a bare Go program", "4 cards;", "latency ",
		"raw: p50", "4 of 4 delivered", "SIGTERM: 0 of 4 exited with an error", "4 of 4 cards say offline after it"} {
		assert.Equal(t, 3, strings.Count(report, want), "%q once per backend in\n%s", want, report)
	}
	if cpuSupported {
		assert.Equal(t, 3, strings.Count(report, "all that CPU on this machine's"))
		assert.Contains(t, report, "1 instance(s) held by the agents")
		assert.Equal(t, 3, strings.Count(report, "idle CPU"))
	}
}

func TestHarnessRejectsBadFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-n", "0"}, {"-backend", "sqlite"}, {"-watch", "never"}, {"-sends", "0"}, {"extra"}, {"-nosuchflag"}} {
		err := run(context.Background(), args, io.Discard, io.Discard)
		require.Error(t, err, "%q", args)
	}
}
