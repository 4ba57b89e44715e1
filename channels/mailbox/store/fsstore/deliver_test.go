package fsstore

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

func TestDeliverWritesWholeFileIntoInbox(t *testing.T) {
	t.Parallel()
	for _, noSync := range []bool{false, true} {
		t.Run(map[bool]string{false: "sync", true: "nosync"}[noSync], func(t *testing.T) {
			s, events := openMsgStore(t, func(o *Options) { o.NoSync = noSync })
			m := newMsg("alice", "bob", "hello")
			deliver(t, s, m)

			name := envelope.FileName(m)
			assert.Equal(t, []string{name}, names(t, agentPath(s, "bob", inboxDir)))
			assert.Empty(t, names(t, agentPath(s, "bob", tmpDir)), "staging file removed")
			for _, sub := range []string{"", inboxDir, processedDir, tmpDir} {
				fi, err := os.Lstat(agentPath(s, "bob", sub))
				require.NoError(t, err)
				assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), sub)
			}
			fi, err := os.Lstat(agentPath(s, "bob", inboxDir, name))
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

			got, err := readMessage(agentPath(s, "bob", inboxDir, name), 1<<20)
			require.NoError(t, err)
			assert.Equal(t, m.ID, got.ID)
			assert.Equal(t, "hello", got.Text())

			ev := events.TakeKind(t, driver.EventSent, nil)
			assert.Equal(t, driver.Event{Time: ev.Time, Kind: driver.EventSent, Agent: "bob", MessageID: m.ID,
				From: "alice", Ref: name}, ev)
		})
	}
}

func TestDeliverRefusesBadAgentIDs(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	for _, tt := range []struct{ name, from, to string }{
		{"traversal to", "alice", "../x"},
		{"slash to", "alice", "a/b"},
		{"empty to", "alice", ""},
		{"dot-dot to", "alice", ".."},
		{"traversal from", "../x", "bob"},
		{"control char", "alice", "b\x00b"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMsg("alice", "bob", "x")
			m.From, m.To = tt.from, tt.to
			err := s.Deliver(context.Background(), m)
			require.ErrorIs(t, err, envelope.ErrBadAgentID)
		})
	}
	assert.Empty(t, names(t, s.Root()), "nothing created")
	assert.NotContains(t, names(t, filepath.Dir(s.Root())), "x")
}

func TestDeliverRefusesInvalidMessages(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	require.Error(t, s.Deliver(context.Background(), nil))
	for _, tt := range []struct {
		name   string
		change func(*envelope.Message)
	}{
		{"missing id", func(m *envelope.Message) { m.ID = "" }},
		{"missing timestamp", func(m *envelope.Message) { m.Timestamp = envelope.Time{} }},
		{"bad type", func(m *envelope.Message) { m.Type = "spam" }},
		{"task without block", func(m *envelope.Message) { m.Type = envelope.TypeTask }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMsg("alice", "bob", "x")
			tt.change(m)
			require.ErrorIs(t, s.Deliver(context.Background(), m), envelope.ErrMalformed)
		})
	}
	assert.Empty(t, names(t, s.Root()))
}

func TestDeliverRefusesOversized(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t, func(o *Options) { o.MaxMessageBytes = 1024 })
	m := newMsg("alice", "bob", strings.Repeat("x", 2000))
	err := s.Deliver(context.Background(), m)
	require.ErrorIs(t, err, envelope.ErrTooLarge)
	size := len(encoded(t, m))
	assert.Contains(t, err.Error(), "is "+strconv.Itoa(size)+" bytes")
	assert.Contains(t, err.Error(), "limit of 1024 bytes")
	assert.Empty(t, names(t, s.Root()))
}

func TestDeliverCanceledContext(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.ErrorIs(t, s.Deliver(ctx, newMsg("alice", "bob", "x")), context.Canceled)
}

func TestDeliverTwiceIsHarmless(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t)
	m := newMsg("alice", "bob", "x")
	deliver(t, s, m)
	deliver(t, s, m)
	assert.Equal(t, []string{envelope.FileName(m)}, names(t, agentPath(s, "bob", inboxDir)))
	assert.Empty(t, names(t, agentPath(s, "bob", tmpDir)))
	assert.Equal(t, 1, events.CountKind(driver.EventSent))
}

func TestDeliverNeverReplacesOtherContent(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	m := newMsg("alice", "bob", "mine")
	inbox := agentPath(s, "bob", inboxDir)
	other := []byte(`{"other": true}`)
	writeRaw(t, inbox, envelope.FileName(m), other)

	deliver(t, s, m)
	got := names(t, inbox)
	require.Len(t, got, 2)
	data, err := os.ReadFile(filepath.Join(inbox, envelope.FileName(m)))
	require.NoError(t, err)
	assert.Equal(t, other, data, "the existing file is untouched")
	mine := got[0]
	if mine == envelope.FileName(m) {
		mine = got[1]
	}
	assert.True(t, strings.HasSuffix(mine, envelope.MessageSuffix), mine)
	assert.Greater(t, mine, envelope.FileName(m), "the suffixed name sorts after the original")
	data, err = os.ReadFile(filepath.Join(inbox, mine))
	require.NoError(t, err)
	assert.Equal(t, encoded(t, m), data)
}

func TestDeliverRefusesSymlinks(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"", inboxDir, tmpDir, processedDir} {
		t.Run("symlinked "+strings.TrimPrefix(sub+" ", " ")+"folder", func(t *testing.T) {
			s, _ := openMsgStore(t)
			outside := t.TempDir()
			if sub == "" {
				require.NoError(t, os.Symlink(outside, agentPath(s, "evil")))
			} else {
				require.NoError(t, os.MkdirAll(agentPath(s, "evil"), 0o700))
				require.NoError(t, os.Symlink(outside, agentPath(s, "evil", sub)))
			}
			err := s.Deliver(context.Background(), newMsg("alice", "evil", "x"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "symlink")
			assert.Empty(t, names(t, outside), "nothing written through the link")
		})
	}
}

func TestDeliverSameMillisecondSameSender(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	// Two messages in one millisecond (ids too, so that their order in
	// the file names is the order sent; see newMsg). nanobot named both
	// "<second>_alice.msg.json" and lost one.
	a, b := newMsg("alice", "bob", "first"), newMsg("alice", "bob", "second")
	for !a.Timestamp.Equal(b.Timestamp.Time) {
		a, b = newMsg("alice", "bob", "first"), newMsg("alice", "bob", "second")
	}
	deliver(t, s, a)
	deliver(t, s, b)
	in := openTestInbox(t, s, "bob")
	assert.Equal(t, "first", next(t, in).Message.Text())
	assert.Equal(t, "second", next(t, in).Message.Text())
}
