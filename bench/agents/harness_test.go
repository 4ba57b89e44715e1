package main

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The harness runs end to end on a few agents: each gets its message, the
// agents share one inotify instance, and the report prints. (No timing is
// checked here: the figures are the benchmark's.)
func TestHarnessSmall(t *testing.T) {
	t.Parallel()
	r, err := measure(testkit.Ctx(t), options{n: 5, root: t.TempDir()}, io.Discard)
	require.NoError(t, err)
	assert.Len(t, r.latencies, 5)
	assert.Zero(t, r.fsnotifyOff)
	if runtime.GOOS == "linux" {
		assert.Equal(t, 1, r.inotify)
	}
	var out bytes.Buffer
	r.print(&out)
	assert.Contains(t, out.String(), "5 mailbox channels")
}

func TestHarnessRejectsBadFlags(t *testing.T) {
	t.Parallel()
	assert.Error(t, run(testkit.Ctx(t), []string{"-n", "0"}, io.Discard, io.Discard))
}
