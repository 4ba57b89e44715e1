package mailboxtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The tests below have a delegator on a manual clock and a worker "bob"
// that is only a card (it never takes anything from its inbox): alive
// but not accepting, or crashed (its heartbeat an hour old) after it
// accepted. Another holder of the capability, when there is one, runs
// on the real clock, so it stays online while the delegator's clock
// moves a few seconds.

// lostFeishu is the conversation the tasks of these tests began in.
var lostFeishu = &envelope.Callback{Channel: "feishu", ChatID: "u1", SessionID: "feishu:u1"}

// registerCard writes the card of an agent that runs no channel.
func registerCard(t *testing.T, be *store.Store, id string, beat time.Time, capabilities ...string) {
	t.Helper()
	_, err := be.UpdateCard(testkit.Ctx(t), id, func(c *envelope.Card) {
		c.Capabilities, c.Status, c.MaxConcurrentTasks = capabilities, envelope.StatusIdle, 3
		c.RegisteredAt, c.LastHeartbeat = envelope.NewTime(beat), envelope.NewTime(beat)
	})
	require.NoError(t, err)
}

// inboxOf returns the messages waiting for agent id, claiming them.
func inboxOf(t *testing.T, be *store.Store, id string, n int) []*envelope.Message {
	t.Helper()
	in, err := be.OpenInbox(testkit.Ctx(t), id)
	require.NoError(t, err)
	defer in.Close()
	var out []*envelope.Message
	for range n {
		d, err := in.Next(testkit.Ctx(t))
		require.NoError(t, err)
		out = append(out, d.Message)
	}
	return out
}

// sendAs delivers the message agent from composes for req.
func sendAs(t *testing.T, be *store.Store, from string, req route.Request) {
	t.Helper()
	m, err := route.Compose(from, req, route.ComposeOptions{})
	require.NoError(t, err)
	require.NoError(t, be.Deliver(testkit.Ctx(t), m))
}

// testChannelUnacceptedReoffered: a task sent for a capability that its
// worker does not accept within acceptTimeout goes to the next holder;
// the first worker gets a cancel behind the task.
func (s *suite) testChannelUnacceptedReoffered(t *testing.T) {
	w := s.world(t)
	clk := clock.NewManual(time.Now())
	alice := w.startClocked(t, "alice", clk, func(c *mailbox.Config) { c.AcceptTimeout, c.OfflineAfter = 10, 60 })
	registerCard(t, alice.be, "bob", clk.Now(), "sorting")
	carol := w.startAgent(t, "carol", func(c *mailbox.Config) { c.Capabilities = []string{"sorting"} })

	out, err := alice.ch.PostTo(testkit.Ctx(t), "any:sorting", route.Request{Type: envelope.TypeTask, Text: "sort 5 3 9 1",
		Callback: lostFeishu, Budget: &envelope.Budget{Tokens: 800}})
	require.NoError(t, err)
	require.Len(t, out.Sent, 1)
	require.Equal(t, "bob", out.Sent[0].To, "bob and carol are as free: the first by id")
	clk.Add(10 * time.Second)

	task := carol.recv(t)
	tm := metaOf(t, task)
	assert.Equal(t, "sort 5 3 9 1", task.Content)
	assert.Equal(t, &envelope.Budget{Tokens: 800}, tm.Task.Budget, "the task goes again with its budget")
	accepted := alice.recv(t)
	assert.Equal(t, "feishu", accepted.Channel, "carol's updates are routed to the conversation")
	assert.Equal(t, "carol", metaOf(t, accepted).From)
	assert.Equal(t, tm.Task.ID, metaOf(t, accepted).Task.ID, "the same task")

	msgs := inboxOf(t, alice.be, "bob", 2)
	assert.Equal(t, envelope.TypeTask, msgs[0].Type)
	require.Equal(t, envelope.TypeTaskUpdate, msgs[1].Type)
	assert.Equal(t, envelope.StateCanceled, msgs[1].Task.State, "bob drops it if it ever takes it up")
	assert.Contains(t, msgs[1].Task.Reason, "bob did not accept it within 10s (channels.mailbox.acceptTimeout); offered to carol")

	require.NoError(t, carol.ch.Send(testkit.Ctx(t), busReply("alice", "1 3 5 9", task.Metadata)))
	done := alice.recv(t)
	assert.Equal(t, envelope.StateCompleted, metaOf(t, done).Task.State)
}

// testChannelUnacceptedDirectWaits: a task sent to one agent by name that
// is not accepted in time stays in its inbox; the conversation is told
// once.
func (s *suite) testChannelUnacceptedDirectWaits(t *testing.T) {
	w := s.world(t)
	clk := clock.NewManual(time.Now())
	alice := w.startClocked(t, "alice", clk, func(c *mailbox.Config) { c.AcceptTimeout = 10 })
	registerCard(t, alice.be, "bob", clk.Now(), "sorting")
	alice.post(t, route.Request{To: "bob", Type: envelope.TypeTask, Text: "sort 2 1", Callback: lostFeishu})
	clk.Add(10 * time.Second)

	notice := alice.recv(t)
	assert.Equal(t, "feishu", notice.Channel)
	assert.Equal(t, "it waits in bob's inbox until bob takes it up", notice.Content)
	assert.Equal(t, envelope.StatePending, metaOf(t, notice).Task.State)
	assert.Equal(t, "bob did not accept it within 10s (channels.mailbox.acceptTimeout)", metaOf(t, notice).Task.Reason,
		"the loop tells the reason before the text (agentloop's notice templates)")
	msgs := inboxOf(t, alice.be, "bob", 1)
	assert.Equal(t, envelope.TypeTask, msgs[0].Type, "the task still waits for bob")
}

// testChannelLostWorkerReoffered: a worker that accepted a task sent for a
// capability and then crashed (offline past offlineAfter) loses it to the
// next holder.
func (s *suite) testChannelLostWorkerReoffered(t *testing.T) {
	w := s.world(t)
	clk := clock.NewManual(time.Now())
	alice := w.startClocked(t, "alice", clk, func(c *mailbox.Config) { c.OfflineAfter = 30 })
	registerCard(t, alice.be, "bob", clk.Now().Add(-time.Hour), "sorting")
	carol := w.startAgent(t, "carol", func(c *mailbox.Config) { c.Capabilities = []string{"sorting"} })

	m, err := alice.ch.Post(testkit.Ctx(t), route.Request{To: "bob", Type: envelope.TypeTask, Text: "sort 4 2",
		Callback: lostFeishu, Via: "cap:sorting"})
	require.NoError(t, err)
	sendAs(t, alice.be, "bob", route.Request{To: "alice", Type: envelope.TypeTaskUpdate, TaskID: m.Task.ID,
		TaskState: envelope.StateAccepted, ReplyTo: m.ID})
	assert.Equal(t, envelope.StateAccepted, metaOf(t, alice.recv(t)).Task.State, "bob accepted, then crashed")
	clk.Add(15 * time.Second) // one check of the workers

	task := carol.recv(t)
	assert.Equal(t, m.Task.ID, metaOf(t, task).Task.ID)
	assert.Equal(t, "carol", metaOf(t, alice.recv(t)).From, "carol accepted")
	msgs := inboxOf(t, alice.be, "bob", 2)
	assert.Equal(t, envelope.StateCanceled, msgs[1].Task.State)
	assert.Contains(t, msgs[1].Task.Reason, "bob went offline while working on it (no heartbeat for 30s); offered to carol")
}

// testChannelLostWorkerFailed: a crashed worker's task with nobody else to
// do it fails, and the conversation it began in is told why.
func (s *suite) testChannelLostWorkerFailed(t *testing.T) {
	w := s.world(t)
	clk := clock.NewManual(time.Now())
	alice := w.startClocked(t, "alice", clk, func(c *mailbox.Config) { c.OfflineAfter = 30 })
	registerCard(t, alice.be, "bob", clk.Now().Add(-time.Hour), "sorting")

	m, err := alice.ch.Post(testkit.Ctx(t), route.Request{To: "bob", Type: envelope.TypeTask, Text: "sort 4 2",
		Callback: lostFeishu, Via: "any:sorting"})
	require.NoError(t, err)
	sendAs(t, alice.be, "bob", route.Request{To: "alice", Type: envelope.TypeTaskUpdate, TaskID: m.Task.ID,
		TaskState: envelope.StateWorking, ReplyTo: m.ID})
	assert.Equal(t, envelope.StateWorking, metaOf(t, alice.recv(t)).Task.State)
	clk.Add(15 * time.Second)

	failed := alice.recv(t)
	fm := metaOf(t, failed)
	assert.Equal(t, "feishu", failed.Channel, "told in the conversation the task began in")
	assert.Equal(t, envelope.StateFailed, fm.Task.State)
	assert.Equal(t, "bob went offline while working on it (no heartbeat for 30s); no other online agent offers sorting",
		fm.Task.Reason)
	assert.Contains(t, failed.Content, "is treated as failed")

	sendAs(t, alice.be, "bob", route.Request{To: "alice", Type: envelope.TypeTaskUpdate, TaskID: m.Task.ID,
		TaskState: envelope.StateCompleted, Text: "late", ReplyTo: m.ID})
	late := alice.recv(t)
	assert.Equal(t, mailbox.ChannelName, late.Channel, "a late result of a failed task is no longer routed to the user")
}
