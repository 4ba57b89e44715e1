//go:build unix

package mailbox_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A stop whose offline mark cannot reach a busy registry in time (a
// thousand agents stopped at once on one root) still stops cleanly: the
// mark waits in the registry's queue, and the registry's next writer
// merges it.
func TestStopWithTheRegistryBusy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	require.Equal(t, envelope.StatusIdle, e.card(t, "coder").Status)

	// Another process's merge under way: _registry.lock held through a
	// file of its own (flock locks belong to the open file).
	lock, err := os.OpenFile(filepath.Join(e.root, "_registry.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	defer lock.Close()
	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_EX))

	// The mark waits for the lock until 1 s before the stop's deadline,
	// then stays queued.
	ctx, cancel := context.WithTimeout(testkit.Ctx(t), 3*time.Second) // the goroutines stop within the first two seconds
	defer cancel()
	require.NoError(t, a.Stop(ctx), "a stop does not fail for a busy registry")
	assert.Equal(t, envelope.StatusIdle, e.card(t, "coder").Status, "not in the registry yet")
	queued, err := os.ReadDir(filepath.Join(e.root, "_registry.queue"))
	require.NoError(t, err)
	require.Len(t, queued, 1, "the mark waits in the queue")

	require.NoError(t, syscall.Flock(int(lock.Fd()), syscall.LOCK_UN))
	e.startAgent(t, "reviewer") // the registry's next writer
	c := e.card(t, "coder")
	assert.Equal(t, envelope.StatusOffline, c.Status, "merged by the next writer")
	assert.Empty(t, c.CurrentTasks)
}
