package fsstore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// watchedRoot opens a store on a fresh root for the watch tests, with
// messages of at most 512 bytes, closed when the test ends.
func watchedRoot(t *testing.T) *fsstore.Store {
	t.Helper()
	st, err := fsstore.Open(fsstore.Options{Root: filepath.Join(t.TempDir(), "mailboxes"), MaxMessageBytes: 512})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// putInInbox puts a file called name with data in agent's inbox the way a
// sender does: written beside it, then renamed in.
func putInInbox(t *testing.T, st *fsstore.Store, agent, name string, data []byte) {
	t.Helper()
	dir := filepath.Join(st.Root(), agent, "inbox")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	tmp := filepath.Join(st.Root(), agent, name+".tmp")
	require.NoError(t, os.WriteFile(tmp, data, 0o600))
	require.NoError(t, os.Rename(tmp, filepath.Join(dir, name)))
}

// A message delivered after Watch is ready is reported once, by its path
// under the root, in an agent's inbox that existed or appeared; what
// waited before is not reported, and nothing is claimed.
func TestWatcherReportsNewMessagesOnce(t *testing.T) {
	st := watchedRoot(t)
	ctx := context.Background()
	require.NoError(t, st.Deliver(ctx, storetest.NewMessage("alice", "bob", "before")))

	w := storetest.StartWatch(t, st, "")
	first := storetest.NewMessage("alice", "bob", "first")
	require.NoError(t, st.Deliver(ctx, first))
	require.NoError(t, st.Deliver(ctx, first), "delivered again")
	second := storetest.NewMessage("alice", "newcomer", "second")
	require.NoError(t, st.Deliver(ctx, second))

	got := w.Next(t)
	require.NoError(t, got.Err)
	assert.Equal(t, first.ID, got.Message.ID)
	assert.Equal(t, filepath.Join("bob", "inbox", envelope.FileName(first)), got.Ref)
	got = w.Next(t)
	require.NoError(t, got.Err)
	assert.Equal(t, second.ID, got.Message.ID, "the first message is reported once")
	assert.Equal(t, filepath.Join("newcomer", "inbox", envelope.FileName(second)), got.Ref)
	w.Stop(t)

	n, err := st.Depth("bob")
	require.NoError(t, err)
	assert.Equal(t, 2, n, "watch claimed nothing")
}

// Watching one agent reports that agent's messages only.
func TestWatcherOneAgent(t *testing.T) {
	st := watchedRoot(t)
	ctx := context.Background()
	w := storetest.StartWatch(t, st, "bob") // bob has no folder yet
	require.NoError(t, st.Deliver(ctx, storetest.NewMessage("alice", "carol", "not for bob")))
	forBob := storetest.NewMessage("alice", "bob", "for bob")
	require.NoError(t, st.Deliver(ctx, forBob))

	got := w.Next(t)
	require.NoError(t, got.Err)
	assert.Equal(t, forBob.ID, got.Message.ID)
}

// A file that cannot be read is reported with the reason the store's own
// reader gives (its size cap, its decoder), and watching goes on.
func TestWatcherSaysWhyUnreadable(t *testing.T) {
	st := watchedRoot(t)
	require.NoError(t, st.Deliver(context.Background(), storetest.NewMessage("alice", "bob", "before")))
	w := storetest.StartWatch(t, st, "bob")

	putInInbox(t, st, "bob", "1745659900_writer.msg.json", []byte(`{"id": "msg_1745659900_writer", "from": "wri`))
	putInInbox(t, st, "bob", "1745659901_writer.msg.json", []byte(strings.Repeat(" ", 600)+"{}"))
	require.NoError(t, os.Symlink(filepath.Join(t.TempDir(), "elsewhere"),
		filepath.Join(st.Root(), "bob", "inbox", "1745659902_writer.msg.json")))
	good := storetest.NewMessage("alice", "bob", "still watching")
	require.NoError(t, st.Deliver(context.Background(), good))

	why := map[string]string{}
	for range 3 {
		got := w.Next(t)
		assert.Nil(t, got.Message, got.Ref)
		if assert.Error(t, got.Err, got.Ref) {
			why[got.Ref] = got.Err.Error()
		}
	}
	inbox := filepath.Join("bob", "inbox")
	assert.Contains(t, why[filepath.Join(inbox, "1745659900_writer.msg.json")], "malformed message")
	assert.Equal(t, "oversized: 602 bytes > 512", why[filepath.Join(inbox, "1745659901_writer.msg.json")])
	assert.Equal(t, "not a regular file (symlink)", why[filepath.Join(inbox, "1745659902_writer.msg.json")])
	got := w.Next(t)
	require.NoError(t, got.Err)
	assert.Equal(t, good.ID, got.Message.ID, "watching goes on")
}

// An error from Arrived ends the Watch, which returns it; a closed store
// and an agent id that is not valid are refused at once.
func TestWatcherEndsAndRefuses(t *testing.T) {
	st := watchedRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	errGone := errors.New("stdout is gone")
	done := make(chan error, 1)
	ready := make(chan struct{})
	go func() {
		done <- st.Watch(ctx, "bob", driver.WatchFuncs{
			Arrived: func(driver.Watched) error { return errGone },
			Ready:   func() { close(ready) },
		})
	}()
	<-ready
	require.NoError(t, st.Deliver(ctx, storetest.NewMessage("alice", "bob", "one")))
	select {
	case err := <-done:
		require.ErrorIs(t, err, errGone)
	case <-ctx.Done():
		t.Fatal("Watch went on after Arrived failed")
	}

	require.ErrorIs(t, st.Watch(ctx, "a/b", driver.WatchFuncs{}), envelope.ErrBadAgentID)
	require.NoError(t, st.Close())
	require.ErrorIs(t, st.Watch(ctx, "", driver.WatchFuncs{}), driver.ErrClosed)
}
