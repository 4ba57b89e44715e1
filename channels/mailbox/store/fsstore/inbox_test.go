package fsstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestOpenInboxCreatesFolders(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "bob")
	assert.Equal(t, "bob", in.Agent())
	for _, sub := range []string{inboxDir, processedDir, tmpDir, rejectedDir, stateDir} {
		fi, err := os.Lstat(agentPath(s, "bob", sub))
		require.NoError(t, err, sub)
		assert.True(t, fi.IsDir())
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), sub)
	}
	assert.NoDirExists(t, agentPath(s, "bob", claimedDir), "claims go to the claim log")
	data, err := os.ReadFile(agentPath(s, "bob", lockName))
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(os.Getpid())+"\n", string(data))
}

func TestOpenInboxRefusesBadIDs(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	for _, id := range []string{"../x", "a/b", "", "..", "_registry"} {
		_, err := s.OpenInbox(context.Background(), id)
		require.ErrorIs(t, err, envelope.ErrBadAgentID, id)
	}
	assert.Empty(t, names(t, s.Root()))
}

func TestOpenInboxRefusesSymlinks(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"", inboxDir, claimedDir, stateDir} {
		t.Run("symlinked "+sub, func(t *testing.T) {
			s, _ := openMsgStore(t)
			outside := t.TempDir()
			if sub == "" {
				require.NoError(t, os.Symlink(outside, agentPath(s, "evil")))
			} else {
				require.NoError(t, os.MkdirAll(agentPath(s, "evil"), 0o700))
				require.NoError(t, os.Symlink(outside, agentPath(s, "evil", sub)))
			}
			_, err := s.OpenInbox(context.Background(), "evil")
			require.ErrorContains(t, err, "symlink")
			assert.Empty(t, names(t, outside))
		})
	}
}

func TestOpenInboxRefusesSymlinkedLockFile(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	target := t.TempDir() + "/target"
	require.NoError(t, os.MkdirAll(agentPath(s, "bob"), 0o700))
	require.NoError(t, os.Symlink(target, agentPath(s, "bob", lockName)))
	_, err := s.OpenInbox(context.Background(), "bob")
	require.ErrorContains(t, err, "symlink")
	assert.NoFileExists(t, target)
}

func TestOpenInboxBusy(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	first := openTestInbox(t, s, "bob")
	_, err := s.OpenInbox(context.Background(), "bob")
	require.ErrorIs(t, err, driver.ErrInboxBusy)
	assert.Contains(t, err.Error(), `"bob"`)
	assert.Contains(t, err.Error(), "pid "+strconv.Itoa(os.Getpid()))

	other, err := Open(Options{Root: s.Root()})
	require.NoError(t, err)
	defer other.Close()
	_, err = other.OpenInbox(context.Background(), "bob")
	require.ErrorIs(t, err, driver.ErrInboxBusy, "a second store sees the lock too")

	require.NoError(t, first.Close())
	again, err := other.OpenInbox(context.Background(), "bob")
	require.NoError(t, err, "the lock is released by Close")
	require.NoError(t, again.Close())
}

func TestOpenInboxCanceledContext(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.OpenInbox(ctx, "bob")
	require.ErrorIs(t, err, context.Canceled)
}

func TestNextInFileNameOrder(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t)
	var sent []*envelope.Message
	for i := range 5 {
		m := newMsg("alice", "bob", fmt.Sprint(i))
		sent = append(sent, m)
	}
	for _, i := range []int{3, 0, 4, 1, 2} { // delivery order does not matter
		deliver(t, s, sent[i])
	}
	in := openTestInbox(t, s, "bob")
	for i := range 5 {
		d := next(t, in)
		assert.Equal(t, sent[i].ID, d.Message.ID)
		assert.False(t, d.Redelivered)
		ev := events.TakeKind(t, driver.EventClaimed, nil)
		assert.Equal(t, sent[i].ID, ev.MessageID)
		assert.Equal(t, envelope.FileName(sent[i]), ev.Ref)
	}
	assert.Len(t, names(t, agentPath(s, "bob", inboxDir)), 5, "claimed, not moved")
	assert.Len(t, claimCounts(t, agentPath(s, "bob", stateDir, claimsName)), 5)
}

// nextWhenWaiting starts Next and returns once it waits for news, with
// the channel its result will arrive on.
func nextWhenWaiting(t *testing.T, in *Inbox) <-chan *driver.Delivery {
	t.Helper()
	waiting := make(chan struct{}, 1)
	in.onWait = func() {
		select {
		case waiting <- struct{}{}:
		default:
		}
	}
	got := make(chan *driver.Delivery, 1)
	go func() {
		d, err := in.Next(context.Background())
		assert.NoError(t, err)
		got <- d
	}()
	select {
	case <-waiting:
	case <-time.After(testkit.WaitLimit):
		t.Fatal("Next never waited")
	}
	return got
}

func receive(t *testing.T, got <-chan *driver.Delivery) *driver.Delivery {
	t.Helper()
	select {
	case d := <-got:
		return d
	case <-time.After(testkit.WaitLimit):
		t.Fatal("Next did not wake up for a new message")
	}
	return nil
}

func TestNextWakesOnFsnotify(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t) // poll interval one hour: only fsnotify can wake Next
	in := openTestInbox(t, s, "bob")
	got := nextWhenWaiting(t, in)
	m := newMsg("alice", "bob", "wake up")
	deliver(t, s, m)
	assert.Equal(t, m.ID, receive(t, got).Message.ID)
}

func TestNextRescansEveryPollInterval(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "bob")
	in.watch.stop() // no fsnotify (the folder to watch is missing): only the safety net
	in.watch = startWatcher(s.watchHub(), s.root, 10*time.Millisecond, in.log, folder{t.TempDir() + "/missing", in.notify, nil})
	got := nextWhenWaiting(t, in)
	m := newMsg("alice", "bob", "found by polling")
	deliver(t, s, m)
	assert.Equal(t, m.ID, receive(t, got).Message.ID)
}

func TestNextCanceledContext(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "bob")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := in.Next(ctx)
	require.ErrorIs(t, err, context.Canceled)

	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err = in.Next(ctx)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestNextAfterClose(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "bob")
	require.NoError(t, in.Close())
	require.NoError(t, in.Close(), "Close is idempotent")
	_, err := in.Next(context.Background())
	require.ErrorIs(t, err, driver.ErrClosed)
}

func TestCloseRacingBlockedNext(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	for range 20 {
		in, err := s.OpenInbox(context.Background(), "bob")
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		errs := make(chan error, 2)
		for range 2 { // one blocked inside, one queued behind it
			go func() {
				_, err := in.Next(ctx)
				errs <- err
			}()
		}
		go cancel()
		require.NoError(t, in.Close())
		for range 2 {
			err := <-errs
			assert.True(t, errors.Is(err, driver.ErrClosed) || errors.Is(err, context.Canceled), "got %v", err)
		}
	}
}

func TestRedeliveryAfterReopen(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	a, b := newMsg("alice", "bob", "a"), newMsg("alice", "bob", "b")
	deliver(t, s, a)
	deliver(t, s, b)
	in := openTestInbox(t, s, "bob")
	require.Equal(t, a.ID, next(t, in).Message.ID)
	require.NoError(t, in.Close()) // crash-like: a stays claimed, b pending

	c := newMsg("alice", "bob", "c")
	deliver(t, s, c)
	in = openTestInbox(t, s, "bob")
	d := next(t, in)
	assert.Equal(t, a.ID, d.Message.ID)
	assert.True(t, d.Redelivered)
	for _, want := range []*envelope.Message{b, c} {
		d := next(t, in)
		assert.Equal(t, want.ID, d.Message.ID)
		assert.False(t, d.Redelivered)
	}
}

func TestNextStreamsLargeBacklogInBatches(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	const n = 300
	var sent []*envelope.Message
	for i := range n {
		m := newMsg("alice", "bob", strconv.Itoa(i))
		sent = append(sent, m)
		if i%2 == 0 {
			deliver(t, s, m)
		}
	}
	in := openTestInbox(t, s, "bob")
	in.batch = 16
	var got []string
	for len(got) < n {
		d := next(t, in)
		got = append(got, d.Message.Text())
		ack(t, in, d)
		if len(got) == 40 { // the odd ones arrive late, with smaller names
			for i := 1; i < n; i += 2 {
				deliver(t, s, sent[i])
			}
		}
	}
	seen := map[string]bool{}
	for _, text := range got {
		assert.False(t, seen[text], "delivered twice: %s", text)
		seen[text] = true
	}
	assert.Len(t, seen, n)
	assert.Len(t, names(t, agentPath(s, "bob", processedDir)), n)
	// Those delivered early come in order, and so do the late ones.
	last := map[int]int{0: -1, 1: -1}
	for _, text := range got {
		i, err := strconv.Atoi(text)
		require.NoError(t, err)
		assert.Greater(t, i, last[i%2], "out of order: %v", got)
		last[i%2] = i
	}
}
