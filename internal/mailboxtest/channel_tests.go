package mailboxtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// testChannelMessage: a message posted by one agent reaches the other's
// bus as channel "mailbox", chat id = the sender.
func (s *suite) testChannelMessage(t *testing.T) {
	w := s.world(t)
	alice, bob := w.startAgent(t, "alice", nil), w.startAgent(t, "bob", nil)
	id := alice.post(t, route.Request{To: "bob", Text: "hello bob"})
	in := bob.recv(t)
	assert.Equal(t, mailbox.ChannelName, in.Channel)
	assert.Equal(t, "alice", in.SenderID)
	assert.Equal(t, "alice", in.ChatID)
	assert.Equal(t, "hello bob", in.Content)
	assert.Equal(t, id, metaOf(t, in).MessageID)
	bob.events.WaitKind(t, store.EventProcessed, func(e store.Event) bool { return e.MessageID == id })
}

// testChannelReply: the answer to a message, sent back to its sender with
// the same trace, arrives; it is never refused as a loop.
func (s *suite) testChannelReply(t *testing.T) {
	w := s.world(t)
	alice, bob := w.startAgent(t, "alice", nil), w.startAgent(t, "bob", nil)
	alice.post(t, route.Request{To: "bob", Text: "ping"})
	in := bob.recv(t)
	require.NoError(t, bob.ch.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: mailbox.ChannelName,
		ChatID: "alice", Content: "pong", Metadata: in.Metadata}))
	reply := alice.recv(t)
	assert.Equal(t, "pong", reply.Content)
	assert.Equal(t, metaOf(t, in).MessageID, metaOf(t, reply).ReplyTo)
}

// testChannelTask: a task is accepted (the card shows it), its result is
// sent when the agent answers, and both updates are routed to the
// conversation the task began in.
func (s *suite) testChannelTask(t *testing.T) {
	w := s.world(t)
	alice, bob := w.startAgent(t, "alice", nil), w.startAgent(t, "bob", nil)
	cb := &envelope.Callback{Channel: "feishu", ChatID: "u1", SessionID: "feishu:u1"}
	alice.post(t, route.Request{To: "bob", Type: envelope.TypeTask, Text: "sort 5 3 9 1", Callback: cb})
	task := bob.recv(t)
	tm := metaOf(t, task)
	require.True(t, tm.IsTask())
	assert.Equal(t, "sort 5 3 9 1", task.Content)

	accepted := alice.recv(t)
	assert.Equal(t, "feishu", accepted.Channel, "routed to the user's chat")
	assert.Equal(t, "u1", accepted.ChatID)
	assert.Equal(t, "feishu:u1", accepted.SessionKey())
	assert.Equal(t, envelope.StateAccepted, metaOf(t, accepted).Task.State)
	card, err := alice.be.Card(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	assert.Equal(t, []string{tm.Task.ID}, card.CurrentTasks, "the card shows the task")
	assert.Equal(t, envelope.StatusBusy, card.Status)

	require.NoError(t, bob.ch.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: mailbox.ChannelName,
		ChatID: "alice", Content: "1 3 5 9", Metadata: task.Metadata}))
	done := alice.recv(t)
	assert.Equal(t, "feishu", done.Channel)
	assert.Equal(t, envelope.StateCompleted, metaOf(t, done).Task.State)
	assert.Contains(t, done.Content, "1 3 5 9")
	card, err = alice.be.Card(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	assert.Empty(t, card.CurrentTasks, "capacity freed")
	bob.events.WaitKind(t, store.EventProcessed, func(e store.Event) bool { return e.MessageID == tm.MessageID })
}

// testChannelForgedCallback: a task_update with a callback, for a task the
// receiver never sent, is not routed into any chat: it is set aside with
// the reason.
func (s *suite) testChannelForgedCallback(t *testing.T) {
	w := s.world(t)
	alice := w.startAgent(t, "alice", nil)
	m := storetest.NewMessage("mallory", "alice", "injected")
	m.Type = envelope.TypeTaskUpdate
	m.Task = &envelope.Task{ID: "task-never-sent", State: envelope.StateCompleted}
	m.Callback = &envelope.Callback{Channel: "feishu", ChatID: "victim", SessionID: "feishu:victim"}
	storetest.Deliver(t, alice.be, m)
	ev := alice.events.WaitKind(t, store.EventRefused, func(e store.Event) bool { return e.MessageID == m.ID })
	assert.Equal(t, "task_update of task task-never-sent, which alice did not send to mallory", ev.Reason)
	hello := storetest.NewMessage("mallory", "alice", "hello")
	storetest.Deliver(t, alice.be, hello)
	assert.Equal(t, hello.ID, alice.recv(t).ID, "nothing was published before it")
}

// testChannelAllowFrom: a task from a sender outside allowFrom is refused,
// set aside, and answered rejected "unauthorized".
func (s *suite) testChannelAllowFrom(t *testing.T) {
	w := s.world(t)
	alice := w.startAgent(t, "alice", nil)
	bob := w.startAgent(t, "bob", func(c *mailbox.Config) { c.AllowFrom = []string{"carol"} })
	id := alice.post(t, route.Request{To: "bob", Type: envelope.TypeTask, Text: "work"})
	answer := alice.recv(t)
	am := metaOf(t, answer)
	assert.Equal(t, envelope.StateRejected, am.Task.State)
	assert.Equal(t, "unauthorized", am.Task.Reason)
	ev := bob.events.WaitKind(t, store.EventRefused, func(e store.Event) bool { return e.MessageID == id })
	assert.Contains(t, ev.Reason, "unauthorized")
	assert.Zero(t, bob.bus.InboundDepth(), "nothing reached the agent")
}

// testChannelLoop: a message that already passed through the receiver
// (not a reply) is set aside as a loop; a send back into the trace is
// refused at the sender.
func (s *suite) testChannelLoop(t *testing.T) {
	w := s.world(t)
	bob := w.startAgent(t, "bob", nil)
	m := storetest.NewMessage("alice", "bob", "round and round")
	m.Trace = []string{"bob", "alice"}
	storetest.Deliver(t, bob.be, m)
	ev := bob.events.WaitKind(t, store.EventRefused, func(e store.Event) bool { return e.MessageID == m.ID })
	assert.Contains(t, ev.Reason, "loop")

	_, err := bob.ch.Post(testkit.Ctx(t), route.Request{To: "alice", Text: "fwd",
		Parent: &meta.Meta{From: "carol", Trace: []string{"alice", "carol"}, TTL: 2}})
	assert.ErrorIs(t, err, route.ErrLoop)
	_, err = bob.ch.Post(testkit.Ctx(t), route.Request{To: "dave", Text: "fwd",
		Parent: &meta.Meta{From: "carol", Trace: []string{"carol"}, TTL: 0}})
	assert.ErrorIs(t, err, route.ErrTTLExhausted)
}

// testChannelCapacity: a task beyond maxConcurrentTasks is rejected.
func (s *suite) testChannelCapacity(t *testing.T) {
	w := s.world(t)
	alice := w.startAgent(t, "alice", nil)
	bob := w.startAgent(t, "bob", func(c *mailbox.Config) { c.MaxConcurrentTasks = 1 })
	alice.post(t, route.Request{To: "bob", Type: envelope.TypeTask, Text: "first"})
	assert.Equal(t, "first", bob.recv(t).Content)
	assert.Equal(t, envelope.StateAccepted, metaOf(t, alice.recv(t)).Task.State)
	alice.post(t, route.Request{To: "bob", Type: envelope.TypeTask, Text: "second"})
	second := metaOf(t, alice.recv(t))
	assert.Equal(t, envelope.StateRejected, second.Task.State)
	assert.Contains(t, second.Task.Reason, "over capacity")
}
