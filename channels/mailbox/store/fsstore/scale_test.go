package fsstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// inotifyInstances counts the inotify instances the process holds (Linux:
// the anon_inode:inotify descriptors in /proc/self/fd).
func inotifyInstances(t *testing.T) int {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("counting inotify instances needs Linux's /proc")
	}
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	n := 0
	for _, e := range ents {
		if link, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && link == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

// Issue 13: 300 agents in one process (three stores on one root, as
// agents of one process open them), each served by fsnotify rather than
// the hour-long poll, through one inotify instance. Not parallel: it
// counts the process's inotify instances, which the package's parallel
// tests would change; they wait until it has run.
func TestThreeHundredInboxesShareOneWatcher(t *testing.T) {
	const agents = 300
	root := filepath.Join(t.TempDir(), "mailboxes")
	var stores []*Store
	for range 3 {
		s, err := Open(Options{Root: root, NoSync: true, PollInterval: time.Hour, Logger: discardLogger()})
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	inboxes := make([]*Inbox, agents)
	for i := range inboxes {
		inboxes[i] = openTestInbox(t, stores[i%len(stores)], fmt.Sprintf("agent-%03d", i))
	}
	if runtime.GOOS == "linux" {
		assert.Equal(t, 1, inotifyInstances(t), "one inotify instance for %d inboxes", agents)
	}
	assert.Equal(t, 2*agents, processHub.watching(), "inbox/ and priority/ of each agent")

	waiting := make([]<-chan *driver.Delivery, agents)
	for i, in := range inboxes {
		waiting[i] = nextWhenWaiting(t, in)
	}
	sent := make([]string, agents)
	for i := range inboxes {
		m := newMsg("sender", inboxes[i].Agent(), "wake up")
		sent[i] = m.ID
		deliver(t, stores[(i+1)%len(stores)], m)
	}
	for i := range inboxes {
		d := receive(t, waiting[i]) // only an fsnotify event can wake it within the hour
		require.Equal(t, sent[i], d.Message.ID, "agent %d", i)
		require.NoError(t, inboxes[i].Ack(context.Background(), d))
	}

	for _, in := range inboxes {
		require.NoError(t, in.Close())
	}
	assert.Zero(t, processHub.watching(), "closed inboxes watch nothing")
	if runtime.GOOS == "linux" {
		assert.Zero(t, inotifyInstances(t), "and the watcher is closed with the last of them")
	}
}
