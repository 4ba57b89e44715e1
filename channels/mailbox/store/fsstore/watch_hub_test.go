package fsstore

import (
	"errors"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// fakeHub is a hub whose watcher's channels the test feeds.
func fakeHub(t *testing.T) (*watchHub, chan fsnotify.Event, chan error) {
	t.Helper()
	events, errs := make(chan fsnotify.Event), make(chan error)
	h := newWatchHub(watchLocal, func() (*fsnotify.Watcher, error) { return nil, errors.New("not in this test") })
	src := &fsnotifySource{h: h, fw: &fsnotify.Watcher{Events: events, Errors: errs}}
	h.local = src
	go src.run()
	t.Cleanup(func() { close(events); close(errs) })
	return h, events, errs
}

// newSub returns a subscriber of dir, on no hub yet; its pokes come on the
// returned channel.
func newSub(dir string) (*folderSub, chan struct{}) {
	notify := make(chan struct{}, 1)
	return &folderSub{folder: folder{dir: dir, notify: notify}, subscribed: true}, notify
}

// subscribe puts a subscriber of dir on h without a real watch.
func subscribe(h *watchHub, dir string) (*folderSub, chan struct{}) {
	f, notify := newSub(dir)
	ready := make(chan struct{})
	close(ready)
	h.dirs[dir] = &watchedDir{root: "/r", subs: map[subscriber]bool{f: true}, src: h.local, ready: ready}
	return f, notify
}

// Events go to the subscribers of the folder they happen in, only new
// files are news, and an overflow or another error makes every subscriber
// rescan.
func TestWatchHubDispatchesByFolder(t *testing.T) {
	t.Parallel()
	h, events, errs := fakeHub(t)
	_, inbox := subscribe(h, "/r/bob/inbox")
	_, other := subscribe(h, "/r/carol/inbox")

	events <- fsnotify.Event{Name: "/r/bob/inbox/x.msg.json", Op: fsnotify.Remove}
	events <- fsnotify.Event{Name: "/r/dave/inbox/x.msg.json", Op: fsnotify.Create}
	events <- fsnotify.Event{Name: "/r/carol/inbox/x.msg.json", Op: fsnotify.Create}
	testkit.Recv(t, other, "carol's new file")
	select { // events are handed on in order: bob's came before carol's
	case <-inbox:
		t.Fatal("a removal, or a file in another folder, is no news")
	default:
	}
	for _, ev := range []any{fsnotify.ErrEventOverflow, errors.New("other"), fsnotify.Event{Name: "/r/bob/inbox/y.msg.json", Op: fsnotify.Create}} {
		switch ev := ev.(type) {
		case error:
			errs <- ev
		case fsnotify.Event:
			events <- ev
		}
		testkit.Recv(t, inbox, "a rescan")
	}
	testkit.Recv(t, other, "carol's rescan after the errors")
}

// The hub holds a watcher only while something is watched, adds each
// folder once however many subscribe to it, and a folder that cannot be
// watched changes nothing.
func TestWatchHubSharesOneWatcher(t *testing.T) {
	t.Parallel()
	made := 0
	h := newWatchHub(watchLocal, func() (*fsnotify.Watcher, error) { made++; return fsnotify.NewWatcher() })
	dir := t.TempDir()
	root := filepath.Dir(dir)
	a, _ := newSub(dir) // two subscribers, not on h yet
	b, _ := newSub(dir)
	log := discardLogger()
	require.NoError(t, h.add(root, dir, a, log))
	require.NoError(t, h.add(root, dir, b, log))
	assert.Error(t, h.add(root, dir+"/missing", a, log))
	assert.Equal(t, 1, made)
	assert.Equal(t, 1, h.watching())

	h.remove(dir, a)
	require.NotNil(t, h.local, "b still watches")
	require.NoError(t, h.readd(dir))
	h.remove(dir, b)
	h.remove(dir, b) // twice is harmless
	assert.Nil(t, h.local, "nothing watched: the watcher is closed")
	assert.Error(t, h.readd(dir))

	require.NoError(t, h.add(root, dir, a, log))
	assert.Equal(t, 2, made, "a new watcher when watching starts again")
	h.remove(dir, a)
}

// Without fsnotify an inbox warns once and is still served by the rescan.
func TestInboxWithoutFsnotifyPolls(t *testing.T) {
	t.Parallel()
	logs := &testkit.Buffer{}
	s, _ := openMsgStore(t, func(o *Options) {
		o.PollInterval = 10 * time.Millisecond // only the rescan can find the message
		o.Logger = slog.New(slog.NewTextHandler(logs, nil))
	})
	s.hub = newWatchHub(watchLocal, func() (*fsnotify.Watcher, error) { return nil, errors.New("too many open files") })
	in := openTestInbox(t, s, "bob")
	got := nextWhenWaiting(t, in)
	m := newMsg("alice", "bob", "found by polling")
	deliver(t, s, m)
	assert.Equal(t, m.ID, receive(t, got).Message.ID)
	assert.Contains(t, logs.String(), "fsnotify unavailable")
	assert.Contains(t, logs.String(), "too many open files")
}
