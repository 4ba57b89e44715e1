package fsstore

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
)

// Without fsnotify, Watch says so once and finds new messages by looking
// every poll interval: in inboxes that existed and in new ones, each
// reported once, and not what waited before it started.
func TestWatchWithoutFsnotifyPolls(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t, func(o *Options) { o.PollInterval = 10 * time.Millisecond })
	s.hub = newWatchHub(watchLocal, func() (*fsnotify.Watcher, error) { return nil, errors.New("too many open files") })
	deliver(t, s, newMsg("alice", "bob", "before"))

	w := storetest.StartWatch(t, s, "")
	first := newMsg("alice", "bob", "first")
	deliver(t, s, first)
	got := w.Next(t)
	require.NoError(t, got.Err)
	assert.Equal(t, first.ID, got.Message.ID)
	assert.Equal(t, filepath.Join("bob", "inbox", envelope.FileName(first)), got.Ref)
	second := newMsg("alice", "newcomer", "second")
	deliver(t, s, second)
	got = w.Next(t)
	require.NoError(t, got.Err)
	assert.Equal(t, second.ID, got.Message.ID)
	w.Stop(t)

	assert.Len(t, w.Arrived.All(), 2, "each reported once, nothing from before")
	notices := w.Notices.All()
	require.Len(t, notices, 1)
	assert.Contains(t, notices[0], "fsnotify unavailable (too many open files)")
	n, err := s.Depth("bob")
	require.NoError(t, err)
	assert.Equal(t, 2, n, "watch claimed nothing")
}
