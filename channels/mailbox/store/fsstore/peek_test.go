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
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

type pendingItem struct {
	name string
	msg  *envelope.Message
	err  error
}

func pending(t *testing.T, s *Store, agent string, limit int) []pendingItem {
	t.Helper()
	var out []pendingItem
	err := s.Pending(context.Background(), agent, func(name string, msg *envelope.Message, err error) bool {
		out = append(out, pendingItem{name, msg, err})
		return limit == 0 || len(out) < limit
	})
	require.NoError(t, err)
	return out
}

func TestPendingListsWithoutClaiming(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	var sent []*envelope.Message
	for _, text := range []string{"a", "b", "c"} {
		m := newMsg("alice", "bob", text)
		sent = append(sent, m)
	}
	for _, i := range []int{2, 0, 1} {
		deliver(t, s, sent[i])
	}
	inbox := agentPath(s, "bob", inboxDir)
	writeRaw(t, inbox, early+"broken.msg.json", []byte("{"))
	writeRaw(t, inbox, "x.msg.tmp", nil)
	writeRaw(t, inbox, "notes.txt", nil)

	got := pending(t, s, "bob", 0)
	require.Len(t, got, 4)
	assert.Equal(t, early+"broken.msg.json", got[0].name)
	assert.Nil(t, got[0].msg)
	assert.ErrorIs(t, got[0].err, envelope.ErrMalformed)
	for i, m := range sent {
		assert.Equal(t, envelope.FileName(m), got[i+1].name)
		assert.NoError(t, got[i+1].err)
		assert.Equal(t, m.ID, got[i+1].msg.ID)
	}
	assert.Len(t, names(t, inbox), 6, "nothing claimed or moved")

	assert.Len(t, pending(t, s, "bob", 2), 2, "fn returning false stops the walk")

	n, err := s.Depth("bob")
	require.NoError(t, err)
	assert.Equal(t, 4, n)
}

func TestPendingWalksPastOneBatch(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	const n = peekBatch + 5
	inbox := agentPath(s, "bob", inboxDir)
	require.NoError(t, os.MkdirAll(inbox, 0o700))
	for i := range n {
		writeRaw(t, inbox, early+padded(i)+".msg.json", nil)
	}
	got := pending(t, s, "bob", 0)
	require.Len(t, got, n)
	for i, it := range got {
		require.Equal(t, early+padded(i)+".msg.json", it.name)
	}
}

func padded(i int) string {
	b := []byte("000000")
	for j := len(b) - 1; i > 0; j-- {
		b[j] = byte('0' + i%10)
		i /= 10
	}
	return string(b)
}

func TestPendingStopsWithContext(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	deliver(t, s, newMsg("alice", "bob", "x"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Pending(ctx, "bob", func(string, *envelope.Message, error) bool { return true })
	require.ErrorIs(t, err, context.Canceled)
}

func TestPeekHelpersOnMissingOrUnsafeAgents(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	assert.Empty(t, pending(t, s, "nobody", 0))
	n, err := s.Depth("nobody")
	require.NoError(t, err)
	assert.Zero(t, n)

	for _, id := range []string{"../x", "a/b", ""} {
		require.ErrorIs(t, s.Pending(context.Background(), id, nil), envelope.ErrBadAgentID)
		_, err := s.Depth(id)
		require.ErrorIs(t, err, envelope.ErrBadAgentID)
		if id != "" { // "" watches every agent
			require.ErrorIs(t, s.Watch(context.Background(), id, driver.WatchFuncs{}), envelope.ErrBadAgentID, "%q", id)
		}
	}

	outside := t.TempDir()
	writeRaw(t, filepath.Join(outside, inboxDir), "0_x_y.msg.json", nil)
	require.NoError(t, os.Symlink(outside, agentPath(s, "evil")))
	require.ErrorContains(t, s.Pending(context.Background(), "evil", nil), "symlink")
	_, err = s.Depth("evil")
	require.ErrorContains(t, err, "symlink")
}

func TestAgentsListsAgentFolders(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	deliver(t, s, newMsg("alice", "carol", "x"))
	openTestInbox(t, s, "bob")
	writeRaw(t, s.Root(), "_registry.json", []byte("{}"))
	require.NoError(t, os.Mkdir(filepath.Join(s.Root(), ".hidden"), 0o700))
	require.NoError(t, os.Symlink(t.TempDir(), filepath.Join(s.Root(), "linked")))
	got, err := s.Agents()
	require.NoError(t, err)
	assert.Equal(t, []string{"bob", "carol"}, got)
}

// watchInBackground runs Watch until the test ends and returns what it
// reports, once its watches are in place.
func watchInBackground(t *testing.T, s *Store, agent string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	seen := make(chan string, 100)
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.Watch(ctx, agent, driver.WatchFuncs{Arrived: func(w driver.Watched) error {
			text := "<unreadable>"
			if w.Message != nil {
				text = w.Message.Text()
			}
			seen <- w.Ref + " " + text
			return nil
		}, Ready: func() { close(ready) }})
	}()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
	select {
	case <-ready:
	case <-time.After(testkit.WaitLimit):
		t.Fatal("watch not ready")
	}
	return seen
}

func expectSeen(t *testing.T, seen <-chan string, want string) {
	t.Helper()
	select {
	case got := <-seen:
		assert.Equal(t, want, got)
	case <-time.After(testkit.WaitLimit):
		t.Fatalf("watch did not report %q", want)
	}
}

func TestWatchOneAgent(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	seen := watchInBackground(t, s, "bob") // bob has no folder yet
	deliver(t, s, newMsg("alice", "carol", "not bob"))
	m := newMsg("alice", "bob", "for bob")
	deliver(t, s, m)
	expectSeen(t, seen, filepath.Join("bob", inboxDir, envelope.FileName(m))+" for bob")

	m2 := newMsg("alice", "bob", "second")
	deliver(t, s, m2)
	expectSeen(t, seen, filepath.Join("bob", inboxDir, envelope.FileName(m2))+" second")
	assert.Len(t, names(t, agentPath(s, "bob", inboxDir)), 2, "nothing claimed")

	writeRaw(t, agentPath(s, "bob", inboxDir), early+"junk.msg.json", []byte("{"))
	expectSeen(t, seen, filepath.Join("bob", inboxDir, early+"junk.msg.json")+" <unreadable>")
	select {
	case got := <-seen:
		t.Fatalf("unexpected report %q", got)
	default:
	}
}

func TestWatchAllAgentsIncludingNewOnes(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	deliver(t, s, newMsg("alice", "bob", "before")) // existing files are not reported
	seen := watchInBackground(t, s, "")
	for _, to := range []string{"bob", "newcomer", "another"} {
		m := newMsg("alice", to, "hi "+to)
		deliver(t, s, m)
		expectSeen(t, seen, filepath.Join(to, inboxDir, envelope.FileName(m))+" hi "+to)
	}
}

func TestWatchReadsClaimedFiles(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "bob")
	seen := watchInBackground(t, s, "bob")
	m := newMsg("alice", "bob", "fast")
	deliver(t, s, m)
	d := next(t, in) // may claim it before Watch reads it
	ack(t, in, d)
	expectSeen(t, seen, filepath.Join("bob", inboxDir, envelope.FileName(m))+" fast")
}
