package mailboxtest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// testChannelOrder: two agents in two processes post to a third at once;
// the third agent gets each sender's messages in the order sent.
func (s *suite) testChannelOrder(t *testing.T) {
	const n = 20
	w := s.world(t)
	// Order, not the rate limits (channels.mailbox.limits), is tested here:
	// a burst of n from one sender is over their defaults.
	unlimited := func(c *mailbox.Config) {
		c.Limits.PerEdge.Rate, c.Limits.PerAgent.Rate, c.Limits.PerSender.Rate = 0, 0, 0
	}
	bob := w.startAgent(t, "bob", unlimited)
	senders := []*agent{w.startAgent(t, "alice", unlimited), w.startAgent(t, "carol", unlimited)}
	var wg sync.WaitGroup
	for _, a := range senders {
		wg.Go(func() {
			for i := range n {
				if _, err := a.ch.Post(testkit.Ctx(t), route.Request{To: "bob", Text: fmt.Sprint(i)}); err != nil {
					t.Errorf("post %d from %s: %v", i, a.ch.AgentID(), err)
					return
				}
			}
		})
	}
	got := map[string][]string{}
	for range 2 * n {
		in := bob.recv(t)
		got[in.SenderID] = append(got[in.SenderID], in.Content)
	}
	wg.Wait()
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprint(i)
	}
	for _, a := range senders {
		assert.Equal(t, want, got[a.ch.AgentID()], "order of %s's messages", a.ch.AgentID())
	}
}

// testChannelDuplicate: a message stored twice (a retried send), and again
// after it was handled, reaches the agent once; so does a request stored
// again while its first copy is held for a reply.
func (s *suite) testChannelDuplicate(t *testing.T) {
	w := s.world(t)
	bob := w.startAgent(t, "bob", nil)
	sender := w.open(t, nil)
	m := storetest.NewMessage("alice", "bob", "once")
	storetest.Deliver(t, sender, m, m)
	assert.Equal(t, m.ID, metaOf(t, bob.recv(t)).MessageID)
	bob.events.WaitKind(t, store.EventProcessed, testkit.ByID(m.ID))

	req := storetest.NewMessage("alice", "bob", "answer me")
	req.ExpectsReply = true
	storetest.Deliver(t, sender, m, req, req)
	assert.Equal(t, req.ID, metaOf(t, bob.recv(t)).MessageID, "the handled message was not handed again")
	storetest.Deliver(t, sender, req)
	sentinel := storetest.NewMessage("alice", "bob", "sentinel")
	storetest.Deliver(t, sender, sentinel)
	assert.Equal(t, sentinel.ID, metaOf(t, bob.recv(t)).MessageID, "no second copy of the held request")
}

// testChannelTaskSwept: when a task ends, each side's handled messages of
// it move to the task's archive: reported as EventSwept, and found by
// Browse (when the backend has it) in BoxArchive, where Thread still
// reads them.
func (s *suite) testChannelTaskSwept(t *testing.T) {
	w := s.world(t)
	be := w.open(t, nil)
	storetest.Need(t, s.feat.Sweep(), storetest.OpenInbox(t, be, "probe"))
	alice, bob := w.startAgent(t, "alice", nil), w.startAgent(t, "bob", nil)
	id := alice.post(t, route.Request{To: "bob", Type: envelope.TypeTask, Text: "sort 3 1 2", TaskID: "sort-1"})
	task := bob.recv(t)
	accepted := metaOf(t, alice.recv(t))
	require.Equal(t, envelope.StateAccepted, accepted.Task.State)
	require.NoError(t, bob.ch.Send(testkit.Ctx(t), busReply("alice", "1 2 3", task.Metadata)))
	done := metaOf(t, alice.recv(t))
	require.Equal(t, envelope.StateCompleted, done.Task.State)
	for _, e := range []store.Event{
		bob.events.WaitKind(t, store.EventSwept, testkit.ByID(id)),
		alice.events.WaitKind(t, store.EventSwept, testkit.ByID(accepted.MessageID)),
		alice.events.WaitKind(t, store.EventSwept, testkit.ByID(done.MessageID)),
	} {
		assert.Equal(t, "sort-1", e.TaskID, "swept %s", e.MessageID)
	}

	if !storetest.Has(t, s.feat.Browse(), be) {
		return
	}
	b := be
	s.feat.AssertBoxes(t, b, "bob", map[string]store.Box{id: store.BoxArchive})
	s.feat.AssertBoxes(t, b, "alice", map[string]store.Box{accepted.MessageID: store.BoxArchive, done.MessageID: store.BoxArchive})
	chain, err := view.Thread(testkit.Ctx(t), b, done.MessageID)
	require.NoError(t, err)
	var ids []string
	for _, e := range chain {
		ids = append(ids, e.Message.ID)
	}
	require.NotEmpty(t, ids)
	assert.Equal(t, id, ids[0], "the task first")
	assert.ElementsMatch(t, []string{id, accepted.MessageID, done.MessageID}, ids)
}

// testChannelAuditTrail: the audit log tells the life of a message one
// agent sent another, in order: sent and claimed by the store, delivered
// recorded by the receiving channel, processed by the store; read by
// another process, within testkit.WaitLimit.
func (s *suite) testChannelAuditTrail(t *testing.T) {
	w := s.world(t)
	storetest.Need(t, s.feat.Audit(), w.open(t, nil))
	r := w.open(t, nil)
	storetest.Need(t, s.feat.AuditRead(), r)
	alice, bob := w.startAgent(t, "alice", nil), w.startAgent(t, "bob", nil)
	id := alice.post(t, route.Request{To: "bob", Text: "on the record"})
	bob.recv(t)
	bob.events.WaitKind(t, store.EventProcessed, testkit.ByID(id))
	life := []store.EventKind{store.EventSent, store.EventClaimed, store.EventDelivered, store.EventProcessed}
	log := storetest.WaitAudit(t, r, id, life...)
	assert.Equal(t, life, storetest.KindsOf(log, id))
	for _, e := range log {
		if e.MessageID == id {
			assert.Equal(t, "bob", e.Agent, "%s names the recipient", e.Kind)
			assert.Equal(t, "alice", e.From, "%s names the sender", e.Kind)
			assert.Equal(t, id, e.ThreadID, "%s names the thread", e.Kind)
		}
	}
}
