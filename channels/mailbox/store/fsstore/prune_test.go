package fsstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// age sets the modification time of every file in dir to now - d.
func age(t *testing.T, dir string, d time.Duration) {
	t.Helper()
	at := time.Now().Add(-d)
	for _, n := range names(t, dir) {
		require.NoError(t, os.Chtimes(filepath.Join(dir, n), at, at))
	}
}

func TestPruneByAge(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t)
	in := openTestInbox(t, s, "coder")
	old := inTask(newMsg("lead", "coder", "old"), "t1")
	handle(t, s, in, old, false)
	_, err := in.SweepTask(context.Background(), "t1")
	require.NoError(t, err)
	oldProcessed := newMsg("lead", "coder", "old too")
	handle(t, s, in, oldProcessed, false)
	age(t, agentPath(s, "coder", "processed"), 10*24*time.Hour)
	age(t, agentPath(s, "coder", "archive", "by-task", "t1"), 40*24*time.Hour)
	fresh := newMsg("lead", "coder", "fresh")
	handle(t, s, in, fresh, false)
	held := newMsg("lead", "coder", "held")
	handle(t, s, in, held, true)
	age(t, agentPath(s, "coder", "inbox"), 100*24*time.Hour)

	rep, err := in.Prune(context.Background(), driver.Retention{ProcessedMaxAge: 7 * 24 * time.Hour, ArchiveMaxAge: 30 * 24 * time.Hour})
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Files)
	assert.Equal(t, []string{envelope.FileName(fresh)}, names(t, agentPath(s, "coder", "processed")))
	assert.Equal(t, []string{"by-task"}, names(t, agentPath(s, "coder", "archive")), "the emptied task folder goes")
	assert.Equal(t, []string{envelope.FileName(held)}, names(t, agentPath(s, "coder", "inbox")), "claimed messages are never pruned")
	ev := events.TakeKind(t, driver.EventPruned, nil)
	assert.Contains(t, ev.Reason, "removed 1 file(s)")
}

func TestPruneBySize(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "coder")
	var ms []*envelope.Message
	for i := range 5 {
		m := newMsg("lead", "coder", "message")
		handle(t, s, in, m, false)
		path := agentPath(s, "coder", "processed", envelope.FileName(m))
		at := time.Now().Add(-time.Duration(5-i) * time.Hour) // oldest first
		require.NoError(t, os.Chtimes(path, at, at))
		ms = append(ms, m)
	}
	fi, err := os.Stat(agentPath(s, "coder", "processed", envelope.FileName(ms[0])))
	require.NoError(t, err)
	rep, err := in.Prune(context.Background(), driver.Retention{ProcessedMaxBytes: 2*fi.Size() + 1})
	require.NoError(t, err)
	assert.Equal(t, 3, rep.Files)
	assert.ElementsMatch(t, []string{envelope.FileName(ms[3]), envelope.FileName(ms[4])},
		names(t, agentPath(s, "coder", "processed")), "the newest that fit are kept")

	rep, err = in.Prune(context.Background(), driver.Retention{})
	require.NoError(t, err)
	assert.Zero(t, rep.Files, "no bounds, nothing removed")
	require.NoError(t, in.Close())
	_, err = in.Prune(context.Background(), driver.Retention{ProcessedMaxAge: time.Hour})
	assert.ErrorIs(t, err, driver.ErrClosed)
}
