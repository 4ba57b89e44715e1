package fsstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// quietInbox opens agent's inbox on a store whose watcher can make no
// fsnotify instance, so that only the ticks (every 5 ms) find new
// messages, and returns it with a channel of how many folders each tick
// poked. The ticks look at inbox/ only: a poke of priority/ alone does
// not wake a waiting Next (the markers are read when inbox/ changes), so
// its mark may stay unset while the inbox is idle.
func quietInbox(t *testing.T, agent string) (*Store, *Inbox, <-chan int) {
	t.Helper()
	s, _ := openMsgStore(t)
	s.hub = newWatchHub(watchLocal, func() (*fsnotify.Watcher, error) { return nil, errors.New("too many open files") })
	in := openTestInbox(t, s, agent)
	in.watch.stop()
	ticks := make(chan int, 1024)
	w := newWatcher(s.watchHub(), s.root, 5*time.Millisecond, in.log,
		folder{filepath.Join(in.dir, inboxDir), in.notify, &in.quietInbox})
	w.onTick = func(poked int) {
		select {
		case ticks <- poked:
		default:
		}
	}
	in.watch = w
	go w.run(5 * time.Millisecond)
	return s, in, ticks
}

// ageFolders sets the times of the inbox's folders an hour back, as an
// idle agent's are: a scan that finds them empty then vouches for them.
func ageFolders(t *testing.T, in *Inbox) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, sub := range []string{inboxDir, priorityDir} {
		require.NoError(t, os.Chtimes(filepath.Join(in.dir, sub), old, old))
	}
}

// untilQuietTicks waits for ticks that poked nothing, n in a row.
func untilQuietTicks(t *testing.T, ticks <-chan int, n int) {
	t.Helper()
	deadline := time.After(testkit.WaitLimit)
	for quiet := 0; quiet < n; {
		select {
		case poked := <-ticks:
			if poked == 0 {
				quiet++
			} else {
				quiet = 0
			}
		case <-deadline:
			t.Fatalf("the ticks kept poking: an empty, unchanged inbox should be skipped")
		}
	}
}

// An idle inbox whose folders were empty at their last scan and have not
// changed costs its tick a stat: the tick pokes no folder; a message that
// arrives changes the folder, and the next tick finds it without any
// event.
func TestQuietInboxSkipsTheRescanUntilItChanges(t *testing.T) {
	t.Parallel()
	s, in, ticks := quietInbox(t, "bob")
	ageFolders(t, in)
	got := nextWhenWaiting(t, in)
	untilQuietTicks(t, ticks, 5)

	m := newMsg("alice", "bob", "found by the tick")
	deliver(t, s, m)
	assert.Equal(t, m.ID, receive(t, got).Message.ID)
}

// A folder that changed less than quietRacy ago is not vouched for (a
// file system that keeps times to the second could add a file without
// moving the folder's time): every tick pokes it.
func TestQuietInboxScansAFolderThatMayStillChange(t *testing.T) {
	t.Parallel()
	s, in, ticks := quietInbox(t, "bob")
	got := nextWhenWaiting(t, in) // the folders were just made: racy
	deadline := time.After(testkit.WaitLimit)
	for poking := 0; poking < 5; {
		select {
		case poked := <-ticks:
			require.NotZero(t, poked, "a folder changed %v ago must be scanned", quietRacy)
			poking++
		case <-deadline:
			t.Fatal("no ticks")
		}
	}
	assert.False(t, in.quietInbox.unchanged(filepath.Join(s.root, "bob", inboxDir)))
	m := newMsg("alice", "bob", "found")
	deliver(t, s, m)
	assert.Equal(t, m.ID, receive(t, got).Message.ID)
}

// A message handed out and not yet acknowledged keeps the inbox scanned
// at every tick; once it is acknowledged the folder changes, the next
// scan finds it empty, and, with old times, the ticks go quiet again.
func TestQuietInboxWithAMessageInFlight(t *testing.T) {
	t.Parallel()
	s, in, ticks := quietInbox(t, "bob")
	m := newMsg("alice", "bob", "in flight")
	deliver(t, s, m)
	ageFolders(t, in)
	d, err := in.Next(t.Context())
	require.NoError(t, err)
	require.Equal(t, m.ID, d.Message.ID)
	got := nextWhenWaiting(t, in)
	ageFolders(t, in)
	deadline := time.After(testkit.WaitLimit)
	for poking := 0; poking < 3; {
		select {
		case poked := <-ticks:
			if poked > 0 {
				poking++
			}
		case <-deadline:
			t.Fatal("a folder holding a message in flight must be scanned at every tick")
		}
	}
	require.NoError(t, in.Ack(t.Context(), d))
	ageFolders(t, in)
	untilQuietTicks(t, ticks, 5)
	second := newMsg("alice", "bob", "after")
	deliver(t, s, second)
	assert.Equal(t, second.ID, receive(t, got).Message.ID)
}
