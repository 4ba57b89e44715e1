package storetest

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

func (s *suite) runDelivery(t *testing.T) {
	t.Run("RoundTrip", testkit.Parallel(s.testRoundTrip))
	t.Run("QueuedForUnregisteredAgent", testkit.Parallel(s.testQueued))
	t.Run("OrderPerSender", testkit.Parallel(s.testOrderPerSender))
	t.Run("WakesWaitingReceiver", testkit.Parallel(s.testWakes))
	t.Run("DuplicateHandedOnce", testkit.Parallel(s.testDuplicate))
	t.Run("InvalidRefused", testkit.Parallel(s.testInvalidRefused))
	t.Run("TooLargeRefused", testkit.Parallel(s.testTooLarge))
	t.Run("Events", testkit.Parallel(s.testEvents))
	t.Run("SignedVerifies", testkit.Parallel(s.testSignedVerifies))
}

// testRoundTrip: every field of a message survives delivery.
func (s *suite) testRoundTrip(t *testing.T) {
	be := s.world(t).open(t, nil)
	deadline := envelope.NewTime(time.Now().Add(time.Hour))
	m := NewMessage("alice", "bob", "hello bob")
	m.Type = envelope.TypeTask
	m.Task = &envelope.Task{ID: "task-1", State: envelope.StatePending, Deadline: &deadline}
	m.Callback = &envelope.Callback{Channel: "feishu", ChatID: "c1", SessionID: "feishu:c1"}
	m.Content.Parts = append(m.Content.Parts, envelope.DataPart(map[string]any{"n": 1.5}), envelope.FilePart("/tmp/x"))
	m.ReplyTo, m.ThreadID, m.Subject = "parent-id", "thread-id", "sort-numbers"
	m.ExpectsReply, m.Priority, m.HopCount = true, 2, 1
	m.Metadata = map[string]any{"k": "v"}
	Deliver(t, be, m)
	d := Next(t, OpenInbox(t, be, "bob"))
	got := d.Message
	assert.False(t, d.Redelivered)
	assert.Equal(t, m.ID, got.ID)
	assert.Equal(t, m.Timestamp.UnixMilli(), got.Timestamp.UnixMilli())
	got.Timestamp = m.Timestamp
	assert.Equal(t, m.Task.Deadline.UnixMilli(), got.Task.Deadline.UnixMilli())
	got.Task.Deadline = m.Task.Deadline
	assert.Equal(t, m, got)
}

// testQueued: a message to an agent that never registered waits for it.
func (s *suite) testQueued(t *testing.T) {
	w := s.world(t)
	sender := w.open(t, nil)
	m := NewMessage("alice", "newcomer", "welcome")
	Deliver(t, sender, m)
	_, err := sender.Card(testkit.Ctx(t), "newcomer")
	require.ErrorIs(t, err, store.ErrUnknownAgent, "delivery registers no one")
	ExpectNext(t, OpenInbox(t, w.open(t, nil), "newcomer"), m.ID)
}

// testOrderPerSender: two senders in two processes send at once; each
// one's messages arrive in the order sent.
func (s *suite) testOrderPerSender(t *testing.T) {
	const n = 60
	w := s.world(t)
	senders := []string{"alice", "carol"}
	var wg sync.WaitGroup
	for _, from := range senders {
		be := w.open(t, nil)
		wg.Go(func() {
			for i := range n {
				if err := be.Deliver(testkit.Ctx(t), NewMessage(from, "bob", fmt.Sprint(i))); err != nil {
					t.Errorf("deliver %d from %s: %v", i, from, err)
					return
				}
			}
		})
	}
	in := OpenInbox(t, w.open(t, nil), "bob")
	got := map[string][]string{}
	for _, m := range drain(t, in, 2*n) {
		got[m.From] = append(got[m.From], m.Text())
	}
	wg.Wait()
	for _, from := range senders {
		want := make([]string, n)
		for i := range want {
			want[i] = fmt.Sprint(i)
		}
		assert.Equal(t, want, got[from], "order of %s's messages", from)
	}
}

// testWakes: a receiver waiting on an empty inbox gets a message another
// process delivers.
func (s *suite) testWakes(t *testing.T) {
	w := s.world(t)
	in := OpenInbox(t, w.open(t, nil), "bob")
	got := make(chan *store.Delivery, 1)
	go func() {
		d, err := in.Next(testkit.Ctx(t))
		if err != nil {
			t.Errorf("next: %v", err)
		}
		got <- d
	}()
	m := NewMessage("alice", "bob", "wake up")
	Deliver(t, w.open(t, nil), m)
	d := <-got
	require.NotNil(t, d)
	assert.Equal(t, m.ID, d.Message.ID)
	Ack(t, in, d)
}

// testDuplicate: a message delivered twice (a retried send) is handed out
// once: not while the first copy is being handled, and not after it was
// acknowledged.
func (s *suite) testDuplicate(t *testing.T) {
	be := s.world(t).open(t, nil)
	m := NewMessage("alice", "bob", "once")
	Deliver(t, be, m, m)
	in := OpenInbox(t, be, "bob")
	d := Next(t, in)
	require.Equal(t, m.ID, d.Message.ID)
	Deliver(t, be, m) // again while the first copy is handed out
	Ack(t, in, d)
	Deliver(t, be, m) // and after it was acknowledged
	sentinel := NewMessage("alice", "bob", "sentinel")
	Deliver(t, be, sentinel)
	ExpectNext(t, in, sentinel.ID)
}

// testInvalidRefused: Deliver refuses what is not a valid message and
// stores nothing.
func (s *suite) testInvalidRefused(t *testing.T) {
	be := s.world(t).open(t, nil)
	ctx := testkit.Ctx(t)
	require.Error(t, be.Deliver(ctx, nil), "nil message")
	bad := map[string]func(m *envelope.Message){
		"bad to":      func(m *envelope.Message) { m.To = "../etc" },
		"bad from":    func(m *envelope.Message) { m.From = "" },
		"no id":       func(m *envelope.Message) { m.ID = "" },
		"bad type":    func(m *envelope.Message) { m.Type = "shout" },
		"task no id":  func(m *envelope.Message) { m.Type, m.Task = envelope.TypeTask, &envelope.Task{} },
		"priority 9":  func(m *envelope.Message) { m.Priority = 9 },
		"negative tt": func(m *envelope.Message) { m.TTL = -1 },
	}
	for name, spoil := range bad {
		m := NewMessage("alice", "bob", name)
		spoil(m)
		assert.Error(t, be.Deliver(ctx, m), name)
	}
	sentinel := NewMessage("alice", "bob", "sentinel")
	Deliver(t, be, sentinel)
	ExpectNext(t, OpenInbox(t, be, "bob"), sentinel.ID)
}

// testTooLarge: a message over the backend's size limit (1 MiB by
// default) is refused with envelope.ErrTooLarge.
func (s *suite) testTooLarge(t *testing.T) {
	be := s.world(t).open(t, nil)
	m := NewMessage("alice", "bob", strings.Repeat("x", 2<<20))
	require.ErrorIs(t, be.Deliver(testkit.Ctx(t), m), envelope.ErrTooLarge)
}

// testEvents: sent, claimed and processed are reported with the message.
func (s *suite) testEvents(t *testing.T) {
	ev := testkit.NewEvents()
	be := s.world(t).open(t, ev.Observe)
	m := NewMessage("alice", "bob", "observed")
	Deliver(t, be, m)
	is := func(e store.Event) bool { return e.MessageID == m.ID && e.Agent == "bob" && e.From == "alice" }
	ev.WaitKind(t, store.EventSent, is)
	ExpectNext(t, OpenInbox(t, be, "bob"), m.ID)
	ev.WaitKind(t, store.EventClaimed, is)
	ev.WaitKind(t, store.EventProcessed, is)
}
