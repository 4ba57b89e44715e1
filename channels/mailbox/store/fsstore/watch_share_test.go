//go:build unix

package fsstore

import (
	"bufio"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// sharedStore opens a store on root whose watch hub is its own (a
// process of its own, as far as sharing goes), in mode, with fsnotify or
// without it. Only events can wake its inboxes: the rescan is an hour.
func sharedStore(t *testing.T, root string, mode watchMode, inotify bool) *Store {
	t.Helper()
	newWatcher := fsnotify.NewWatcher
	if !inotify {
		newWatcher = func() (*fsnotify.Watcher, error) { return nil, errors.New("too many open files") }
	}
	s, err := Open(Options{Root: root, NoSync: true, PollInterval: time.Hour, Logger: discardLogger()})
	require.NoError(t, err)
	s.hub = newWatchHub(mode, newWatcher)
	t.Cleanup(func() { s.Close() })
	return s
}

// Two "processes" of one root share the first one's watcher: the second
// makes none and still wakes at once. When the first stops watching, the
// second takes over (without fsnotify: by polling) and still wakes.
func TestSharedWatcherServesOtherProcesses(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mb")
	server := sharedStore(t, root, watchShared, true)
	client := sharedStore(t, root, watchShared, false)
	sender := sharedStore(t, root, watchLocal, false)

	own, err := server.OpenInbox(context.Background(), "server")
	require.NoError(t, err)
	serving := make(chan string, 1)
	client.hub.onServe = func(root string) { serving <- root }
	in := openTestInbox(t, client, "bob")
	client.hub.mu.Lock()
	assert.Nil(t, client.hub.local, "the client has no watcher of its own")
	client.hub.mu.Unlock()
	_, err = os.Lstat(filepath.Join(root, watchSockName))
	require.NoError(t, err, "the server listens on the root's socket")

	got := nextWhenWaiting(t, in)
	m := newMsg("alice", "bob", "through the shared watcher")
	deliver(t, sender, m)
	assert.Equal(t, m.ID, receive(t, got).Message.ID)

	require.NoError(t, own.Close()) // the server stops watching: the client serves itself
	assert.Equal(t, client.root, testkit.Recv(t, serving, "the client taking over"))
	client.hub.mu.Lock()
	_, polls := client.hub.local.(*pollSource)
	client.hub.mu.Unlock()
	assert.True(t, polls, "the new server has no fsnotify: it polls")
	got = nextWhenWaiting(t, in)
	m = newMsg("alice", "bob", "after the server left")
	deliver(t, sender, m)
	assert.Equal(t, m.ID, receive(t, got).Message.ID)
}

// A process that watches for the root without fsnotify polls: new mail
// still wakes its inboxes, and those of its clients, within the poll.
func TestSharedWatcherPollsWithoutFsnotify(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mb")
	server := sharedStore(t, root, watchPoll, true)
	client := sharedStore(t, root, watchShared, true)
	sender := sharedStore(t, root, watchLocal, false)
	mine := openTestInbox(t, server, "carol")
	theirs := openTestInbox(t, client, "bob")
	client.hub.mu.Lock()
	assert.Nil(t, client.hub.local, "the client connects rather than watch")
	client.hub.mu.Unlock()
	for _, in := range []*Inbox{mine, theirs} {
		got := nextWhenWaiting(t, in)
		m := newMsg("alice", in.Agent(), "found by the poller")
		deliver(t, sender, m)
		assert.Equal(t, m.ID, receive(t, got).Message.ID)
	}
}

// Watch works through a shared watcher too: new agents' folders and their
// files are reported.
func TestSharedWatcherFollowsTheTree(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mb")
	server := sharedStore(t, root, watchShared, true)
	client := sharedStore(t, root, watchShared, false)
	openTestInbox(t, server, "server")
	w := storetest.StartWatch(t, client, "")
	m := newMsg("alice", "newcomer", "in a new folder")
	deliver(t, server, m)
	got := w.Next(t)
	require.NoError(t, got.Err)
	assert.Equal(t, m.ID, got.Message.ID)
	w.Stop(t)
	client.hub.mu.Lock()
	assert.Nil(t, client.hub.local)
	client.hub.mu.Unlock()
}

// The server answers what a client asks for, and refuses folders outside
// the root, missing ones and lines it does not know, without stopping.
func TestSharedWatcherProtocol(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mb")
	server := sharedStore(t, root, watchShared, true)
	openTestInbox(t, server, "server")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "bob", "inbox"), 0o700))
	conn, err := dialShareConn(server.root)
	require.NoError(t, err)
	defer conn.Close()
	r := bufio.NewReader(conn)
	ask := func(line string) string {
		t.Helper()
		_, err := conn.Write([]byte(line + "\n"))
		require.NoError(t, err)
		require.NoError(t, conn.SetReadDeadline(time.Now().Add(testkit.WaitLimit)))
		got, err := r.ReadString('\n')
		require.NoError(t, err)
		return strings.TrimSuffix(got, "\n")
	}
	assert.Equal(t, "e../x\tnot a folder of the root", ask("+../x"))
	assert.Equal(t, "ebob/./inbox\tnot a folder of the root", ask("+bob/./inbox"))
	assert.Equal(t, "emissing\tnotexist", ask("+missing"))
	_, err = conn.Write([]byte("?what\n\n"))
	require.NoError(t, err)
	assert.Equal(t, "abob/inbox", ask("+bob/inbox"))
	require.NoError(t, os.WriteFile(filepath.Join(root, "bob", "inbox", "x.msg.json"), []byte("{}"), 0o600))
	got, err := r.ReadString('\n')
	require.NoError(t, err)
	assert.Equal(t, "cbob/inbox/x.msg.json\n", got)
}

// A root whose socket path is too long for a socket address is still
// shared on linux (through /proc/self/fd).
func TestSharedWatcherLongRoot(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), strings.Repeat("a-long-folder-name-", 6), "mb")
	require.Greater(t, len(filepath.Join(root, watchSockName)), maxSockPath)
	server := sharedStore(t, root, watchShared, true)
	openTestInbox(t, server, "server")
	conn, err := dialShareConn(server.root)
	if errors.Is(err, errNoShare) {
		t.Skip("not shared on this system:", err)
	}
	require.NoError(t, err)
	conn.Close()
	client := sharedStore(t, root, watchShared, false)
	in := openTestInbox(t, client, "bob")
	got := nextWhenWaiting(t, in)
	m := newMsg("alice", "bob", "long root")
	deliver(t, server, m)
	assert.Equal(t, m.ID, receive(t, got).Message.ID)
	client.hub.mu.Lock()
	assert.Nil(t, client.hub.local)
	client.hub.mu.Unlock()
}

var _ net.Conn = (*net.UnixConn)(nil)

// While the process holding the root's watch lock does not serve yet, an
// inbox opens at once and waits; when that process goes away, the inbox's
// process serves, looks again (finding what arrived meanwhile) and wakes
// on events from then on.
func TestSharedWatcherWaitsForAStartingServer(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mb")
	client := sharedStore(t, root, watchShared, true)
	sender := sharedStore(t, root, watchLocal, false)
	starting, err := openLockFile(filepath.Join(root, watchLockName))
	require.NoError(t, err)
	locked, err := tryLock(starting)
	require.NoError(t, err)
	require.True(t, locked)

	in := openTestInbox(t, client, "bob")
	got := nextWhenWaiting(t, in)
	early := newMsg("alice", "bob", "while no one serves")
	deliver(t, sender, early)
	require.NoError(t, releaseLock(starting))
	assert.Equal(t, early.ID, receive(t, got).Message.ID, "found when the watcher is found")

	got = nextWhenWaiting(t, in)
	later := newMsg("alice", "bob", "through the watcher")
	deliver(t, sender, later)
	assert.Equal(t, later.ID, receive(t, got).Message.ID)
	_, err = os.Lstat(filepath.Join(root, watchSockName))
	assert.NoError(t, err, "the inbox's process serves the root now")
}

// Watch writes nothing in the tree: with no watcher serving the root it
// watches with its own and takes no lock; with one serving, it uses it.
func TestSharedWatcherReaderWritesNothing(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mb")
	reader := sharedStore(t, root, watchShared, true)
	w := storetest.StartWatch(t, reader, "")
	for _, name := range []string{watchLockName, watchSockName} {
		_, err := os.Lstat(filepath.Join(root, name))
		assert.ErrorIs(t, err, os.ErrNotExist, "%s made by a reader", name)
	}
	w.Stop(t)

	server := sharedStore(t, root, watchShared, true)
	openTestInbox(t, server, "server")
	reader2 := sharedStore(t, root, watchShared, false)
	w = storetest.StartWatch(t, reader2, "")
	m := newMsg("alice", "bob", "seen through the server")
	deliver(t, server, m)
	got := w.Next(t)
	require.NoError(t, got.Err)
	assert.Equal(t, m.ID, got.Message.ID)
	w.Stop(t)
	reader2.hub.mu.Lock()
	assert.Nil(t, reader2.hub.local, "the reader asked the server")
	reader2.hub.mu.Unlock()
}

// A serving process that dies (its socket left behind, its lock and
// connections released by the kernel) is replaced by one of its clients,
// which still wakes for new mail.
func TestSharedWatcherServerDies(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mb")
	server := sharedStore(t, root, watchShared, true)
	client := sharedStore(t, root, watchShared, true)
	sender := sharedStore(t, root, watchLocal, false)
	_, err := server.OpenInbox(context.Background(), "server")
	require.NoError(t, err)
	serving := make(chan string, 1)
	client.hub.onServe = func(root string) { serving <- root }
	in := openTestInbox(t, client, "bob")
	client.hub.mu.Lock()
	require.Nil(t, client.hub.local, "a client first")
	client.hub.mu.Unlock()

	// What the kernel does when the server is killed.
	sh := server.hub.shares[root]
	sh.mu.Lock()
	srv := sh.server
	sh.mu.Unlock()
	srv.mu.Lock()
	srv.stopped = true
	for c := range srv.conns {
		c.conn.Close()
	}
	srv.mu.Unlock()
	srv.ln.Close()
	require.NoError(t, releaseLock(srv.lock))

	got := nextWhenWaiting(t, in)
	m := newMsg("alice", "bob", "after the server died")
	deliver(t, sender, m)
	assert.Equal(t, m.ID, receive(t, got).Message.ID)
	assert.Equal(t, client.root, testkit.Recv(t, serving, "the client taking over"))
}
