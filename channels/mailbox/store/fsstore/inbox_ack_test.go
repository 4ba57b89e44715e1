package fsstore

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestAckMovesToProcessed(t *testing.T) {
	t.Parallel()
	for _, noSync := range []bool{false, true} {
		s, events := openMsgStore(t, func(o *Options) { o.NoSync = noSync })
		m := newMsg("alice", "bob", "x")
		deliver(t, s, m)
		in := openTestInbox(t, s, "bob")
		d := next(t, in)
		ack(t, in, d)
		name := envelope.FileName(m)
		assert.Equal(t, []string{name}, names(t, agentPath(s, "bob", processedDir)), "same name as in inbox/")
		assert.Empty(t, names(t, agentPath(s, "bob", claimedDir)))
		ev := events.TakeKind(t, driver.EventProcessed, nil)
		assert.Equal(t, m.ID, ev.MessageID)
		assert.Equal(t, "alice", ev.From)
		assert.Equal(t, name, ev.Ref)

		ack(t, in, d) // twice is harmless
		assert.Equal(t, 1, events.CountKind(driver.EventProcessed))
		journal, err := os.ReadFile(agentPath(s, "bob", stateDir, journalName))
		require.NoError(t, err)
		assert.Equal(t, m.ID+"\n", string(journal))
	}
}

func TestAckAndQuarantineErrors(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	for _, m := range []*envelope.Message{newMsg("alice", "bob", "1"), newMsg("alice", "bob", "2")} {
		deliver(t, s, m)
	}
	in := openTestInbox(t, s, "bob")
	other := openTestInbox(t, s, "carol")
	ctx := context.Background()

	require.ErrorContains(t, in.Ack(ctx, nil), "nil delivery")
	require.ErrorContains(t, in.Quarantine(ctx, nil, "x"), "nil delivery")
	require.ErrorContains(t, in.Ack(ctx, &driver.Delivery{Ref: "forged"}), "not handed out by the inbox")

	d := next(t, in)
	require.ErrorContains(t, other.Ack(ctx, d), `inbox of "carol"`)
	require.NoError(t, in.Quarantine(ctx, d, "policy"))
	require.NoError(t, in.Quarantine(ctx, d, "policy"), "twice is harmless")
	require.ErrorContains(t, in.Ack(ctx, d), "already settled")

	d2 := next(t, in)
	ack(t, in, d2)
	require.ErrorContains(t, in.Quarantine(ctx, d2, "late"), "already settled")

	d3 := &driver.Delivery{Message: d2.Message, Ref: &claimRef{in: in, name: "gone.msg.json", id: "x"}}
	require.ErrorContains(t, in.Ack(ctx, d3), "move to processed")

	require.NoError(t, in.Close())
	require.ErrorIs(t, in.Ack(ctx, d3), driver.ErrClosed)
	require.ErrorIs(t, in.Quarantine(ctx, d3, "x"), driver.ErrClosed)
}

func TestQuarantineByReceiver(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t, func(o *Options) { o.NoSync = false })
	m := newMsg("mallory", "bob", "x")
	deliver(t, s, m)
	in := openTestInbox(t, s, "bob")
	d := next(t, in)
	require.NoError(t, in.Quarantine(context.Background(), d, "unauthorized: sender mallory not in allowFrom"))

	name := envelope.FileName(m)
	assert.ElementsMatch(t, []string{name, name + reasonSuffix}, names(t, agentPath(s, "bob", rejectedDir)))
	assert.Empty(t, names(t, agentPath(s, "bob", claimedDir)))
	rec := readReason(t, agentPath(s, "bob", rejectedDir, name+reasonSuffix))
	assert.Equal(t, "unauthorized: sender mallory not in allowFrom", rec["reason"])
	assert.Equal(t, "bob", rec["agent"])
	assert.Equal(t, m.ID, rec["message_id"])
	assert.NotEmpty(t, rec["time"])
	ev := events.TakeKind(t, driver.EventRefused, nil)
	assert.Equal(t, driver.Event{Time: ev.Time, Kind: driver.EventRefused, Agent: "bob", MessageID: m.ID,
		From: "mallory", Ref: name, Reason: "unauthorized: sender mallory not in allowFrom"}, ev)

	deliver(t, s, m) // a retried send of a refused message is not handed out again
	nextSkipsDuplicate(t, s, in, events, m)
}

func readReason(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var rec map[string]string
	require.NoError(t, json.Unmarshal(data, &rec))
	return rec
}

// nextSkipsDuplicate starts Next, waits until it dropped m's copy as a
// duplicate, then proves nothing was handed out by delivering a sentinel
// that must come next.
func nextSkipsDuplicate(t *testing.T, s *Store, in *Inbox, events *testkit.Events, m *envelope.Message) {
	t.Helper()
	got := make(chan *driver.Delivery, 1)
	go func() {
		d, err := in.Next(context.Background())
		assert.NoError(t, err)
		got <- d
	}()
	events.TakeKind(t, driver.EventDuplicate, func(e driver.Event) bool { return e.MessageID == m.ID })
	sentinel := newMsg("zed", in.agent, "sentinel")
	deliver(t, s, sentinel)
	d := receive(t, got)
	assert.Equal(t, sentinel.ID, d.Message.ID)
	ack(t, in, d)
}

func TestRetriedSendOfAckedMessageIsDropped(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t)
	m := newMsg("alice", "bob", "x")
	deliver(t, s, m)
	in := openTestInbox(t, s, "bob")
	ack(t, in, next(t, in))

	deliver(t, s, m) // the name is free again: the file is linked in once more
	nextSkipsDuplicate(t, s, in, events, m)
	assert.Len(t, names(t, agentPath(s, "bob", processedDir)), 3, "the copy is kept in processed/ (with the sentinel)")

	require.NoError(t, in.Close()) // and the journal remembers it across a restart
	in = openTestInbox(t, s, "bob")
	deliver(t, s, m)
	nextSkipsDuplicate(t, s, in, events, m)
}

func TestCopyOfMessageInFlightIsDropped(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t)
	m := newMsg("alice", "bob", "x")
	deliver(t, s, m)
	in := openTestInbox(t, s, "bob")
	first := next(t, in)
	deliver(t, s, m) // retried while the first copy is being handled: the same file is there
	assert.Len(t, names(t, agentPath(s, "bob", inboxDir)), 1, "no second copy")
	again := *m // a copy of the message written otherwise
	again.Content.Parts = append(again.Content.Parts, envelope.Part{Type: "text", Text: "retried"})
	deliver(t, s, &again)
	nextSkipsDuplicate(t, s, in, events, m)
	ack(t, in, first)
	assert.Empty(t, names(t, agentPath(s, "bob", inboxDir)))
	assert.Len(t, names(t, agentPath(s, "bob", processedDir)), 3)
}

func TestRecoveredClaimThatWasAckedIsNotRedelivered(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t)
	m := newMsg("alice", "bob", "x")
	deliver(t, s, m)
	in := openTestInbox(t, s, "bob")
	next(t, in)
	// A crash between the journal entry and the move: claimed/ still
	// holds the file, the journal has its id.
	in.mu.Lock()
	require.NoError(t, addID(in.journal, m.ID))
	in.mu.Unlock()
	require.NoError(t, in.Close())

	in = openTestInbox(t, s, "bob")
	nextSkipsDuplicate(t, s, in, events, m)
	assert.Contains(t, names(t, agentPath(s, "bob", processedDir)), envelope.FileName(m))
}

func TestNanobotIDsAreNotDeduplicated(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	m := newMsg("coder", "bob", "x")
	m.ID = "msg_1745659200_coder" // not unique: two messages may share it
	deliver(t, s, m)
	in := openTestInbox(t, s, "bob")
	ack(t, in, next(t, in))
	m2 := *m
	m2.Content = envelope.Content{Parts: []envelope.Part{envelope.TextPart("another")}}
	deliver(t, s, &m2)
	assert.Equal(t, "another", next(t, in).Message.Text())
	_, err := os.Stat(agentPath(s, "bob", stateDir, journalName))
	require.NoError(t, err)
	data, _ := os.ReadFile(agentPath(s, "bob", stateDir, journalName))
	assert.Empty(t, strings.TrimSpace(string(data)))
}

func TestAckIsSafeFromManyGoroutines(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	const n = 50
	for i := range n {
		deliver(t, s, newMsg("alice", "bob", string(rune('a'+i%26))))
	}
	in := openTestInbox(t, s, "bob")
	done := make(chan error, n)
	for range n {
		d := next(t, in)
		go func() { done <- in.Ack(context.Background(), d) }()
	}
	for range n {
		require.NoError(t, <-done)
	}
	assert.Len(t, names(t, filepath.Join(s.Root(), "bob", processedDir)), n)
}
