package fsstore

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// withDeadline runs fn and fails the test if it does not return within
// testkit.WaitLimit (a FIFO read without O_NONBLOCK waits for ever).
func withDeadline(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(testkit.WaitLimit):
		t.Fatalf("%s hangs", what)
	}
}

// TestClaimLogThatIsNoFileIsSetAside: a directory, a symlink or a FIFO
// in the claim log's place neither hangs nor stops the agent, nor the
// views: the receiver sets it aside, starts a fresh log and hands out
// the waiting message once.
func TestClaimLogThatIsNoFileIsSetAside(t *testing.T) {
	t.Parallel()
	for kind, put := range map[string]func(t *testing.T, path string){
		"directory": func(t *testing.T, path string) { require.NoError(t, os.Mkdir(path, 0o700)) },
		"symlink": func(t *testing.T, path string) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			require.NoError(t, os.WriteFile(target, []byte("x 1\n"), 0o600))
			require.NoError(t, os.Symlink(target, path))
		},
		"fifo": mkfifo,
	} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			s, _ := openMsgStore(t)
			m := newMsg("alice", "bob", "waiting")
			deliver(t, s, m)
			require.NoError(t, os.MkdirAll(agentPath(s, "bob", stateDir), 0o700))
			path := agentPath(s, "bob", stateDir, claimsName)
			put(t, path)

			withDeadline(t, "a view", func() {
				n, err := s.Depth("bob")
				assert.NoError(t, err)
				assert.Equal(t, 1, n)
				_, err = Claims(s.Root(), "bob")
				assert.ErrorIs(t, err, errClaimLogKind, "doctor is told")
			})
			var in *Inbox
			withDeadline(t, "OpenInbox", func() { in = openTestInbox(t, s, "bob") })
			d := next(t, in)
			assert.Equal(t, m.ID, d.Message.ID)
			assert.False(t, d.Redelivered)
			fi, err := os.Lstat(path)
			require.NoError(t, err)
			assert.True(t, fi.Mode().IsRegular(), "a fresh log")
			assert.Equal(t, map[string]int{envelope.FileName(m): 1}, claimCounts(t, path))
			ack(t, in, d)

			var aside []string
			for _, name := range names(t, agentPath(s, "bob", stateDir)) {
				if strings.HasPrefix(name, claimsName+"-corrupt-") {
					aside = append(aside, name)
				}
			}
			assert.Len(t, aside, 1, "what was there is kept, renamed")
		})
	}
}

// TestJournalFIFODoesNotHang: a FIFO in the dedup journal's place makes
// OpenInbox fail with the reason rather than wait for a writer.
func TestJournalFIFODoesNotHang(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	require.NoError(t, os.MkdirAll(agentPath(s, "bob", stateDir), 0o700))
	mkfifo(t, agentPath(s, "bob", stateDir, journalName))
	withDeadline(t, "OpenInbox", func() {
		_, err := s.OpenInbox(context.Background(), "bob")
		assert.ErrorContains(t, err, "not a regular file")
	})
}

// TestClaimLogNameWithSpaces: a message file whose name holds spaces
// (nanobot names files as it likes) is counted like any other, so a
// poison among them is set aside after MaxDeliver hand-outs.
func TestClaimLogNameWithSpaces(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t, func(o *Options) { o.MaxDeliver = 2 })
	m := newMsg("alice", "bob", "spaced")
	name := "1700000000000_alice_a b c.msg.json"
	writeRaw(t, agentPath(s, "bob", inboxDir), name, encoded(t, m))
	for i := range 2 {
		in := openTestInbox(t, s, "bob")
		d := next(t, in)
		assert.Equal(t, i > 0, d.Redelivered, "hand-out %d", i+1)
		require.NoError(t, in.close(false)) // crashed on: not acknowledged, not released
	}
	assert.Equal(t, map[string]int{name: 2}, claimCounts(t, agentPath(s, "bob", stateDir, claimsName)))
	in := openTestInbox(t, s, "bob")
	got := nextWhenWaiting(t, in)
	ev := events.TakeKind(t, driver.EventQuarantined, nil)
	assert.Equal(t, m.ID, ev.MessageID)
	assert.Contains(t, ev.Reason, "maxDeliver 2")
	later := newMsg("alice", "bob", "later")
	deliver(t, s, later)
	assert.Equal(t, later.ID, receive(t, got).Message.ID)
}

// TestClaimLogNameWithLineBreak: a message file whose name holds a line
// break cannot be recorded in the claim log (its line would name another
// file), so it is set aside, not handed out.
func TestClaimLogNameWithLineBreak(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no line breaks in windows file names")
	}
	s, events := openMsgStore(t)
	victim, evil := newMsg("alice", "bob", "victim"), newMsg("mallory", "bob", "evil")
	deliver(t, s, victim)
	evilName := "0_x\n" + envelope.FileName(victim) + " 1\n0_mallory.msg.json"
	writeRaw(t, agentPath(s, "bob", inboxDir), evilName, encoded(t, evil))
	in := openTestInbox(t, s, "bob")
	d := next(t, in)
	assert.Equal(t, victim.ID, d.Message.ID)
	ev := events.TakeKind(t, driver.EventQuarantined, nil)
	assert.Equal(t, evil.ID, ev.MessageID)
	assert.Contains(t, ev.Reason, "line break")
	assert.Equal(t, map[string]int{envelope.FileName(victim): 1}, claimCounts(t, agentPath(s, "bob", stateDir, claimsName)))
}

// TestClaimLogTornLineStartsAfresh: an append cut short (a crash, a full
// disk) does not swallow the claim written after it.
func TestClaimLogTornLineStartsAfresh(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), claimsName)
	require.NoError(t, os.WriteFile(path, []byte("1_a.msg.json 5\n2_b.msg"), 0o600))
	_, torn, err := readClaimLog(path)
	require.NoError(t, err)
	require.True(t, torn)
	l, err := openClaimLog(path, torn)
	require.NoError(t, err)
	require.NoError(t, l.add("3_c.msg.json", time.UnixMilli(7), false))
	require.NoError(t, l.close())
	assert.Equal(t, map[string]int{"1_a.msg.json": 1, "3_c.msg.json": 1}, claimCounts(t, path))
}
