package mailboxtest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// testChannelThread: a conversation alice→bob→alice→carol→alice, linked by
// reply_to (and by thread id), reads back through view.Thread from
// another process, from any of its messages, in causal order (alice's
// clock is behind, so a reply of hers may carry an earlier time than the
// message it answers), each message once in the box it is in: processed
// once handled, inbox while it waits for an agent that is not running.
func (s *suite) testChannelThread(t *testing.T) {
	w := s.world(t)
	b := w.open(t, nil)
	storetest.Need(t, s.feat.Browse(), b)
	clk := clock.NewManual(time.Now())
	alice := w.startClocked(t, "alice", clk, nil)
	bob, carol := w.startAgent(t, "bob", nil), w.startAgent(t, "carol", nil)

	m1 := alice.post(t, route.Request{To: "bob", Text: "plan?", Subject: "plan"})
	in1 := bob.recv(t)
	require.NoError(t, bob.ch.Send(testkit.Ctx(t), busReply("alice", "step one", in1.Metadata)))
	m2 := metaOf(t, alice.recv(t))
	m3 := alice.post(t, route.Request{To: "carol", Text: "agree?", ReplyTo: m2.MessageID, ThreadID: m2.ThreadID})
	in3 := carol.recv(t)
	require.NoError(t, carol.ch.Send(testkit.Ctx(t), busReply("alice", "agreed", in3.Metadata)))
	m4 := metaOf(t, alice.recv(t))
	clk.Add(time.Hour)
	m5 := alice.post(t, route.Request{To: "dave", Text: "fyi", ThreadID: m1})
	alice.post(t, route.Request{To: "bob", Text: "unrelated"})
	bob.recv(t)
	bob.events.WaitKind(t, store.EventProcessed, testkit.ByID(m1))
	alice.events.WaitKind(t, store.EventProcessed, testkit.ByID(m2.MessageID))
	carol.events.WaitKind(t, store.EventProcessed, testkit.ByID(m3))
	alice.events.WaitKind(t, store.EventProcessed, testkit.ByID(m4.MessageID))

	want := []string{m1, m2.MessageID, m3, m4.MessageID, m5}
	for _, id := range want {
		chain, err := view.Thread(testkit.Ctx(t), b, id)
		require.NoError(t, err)
		var ids, agents []string
		var boxes []store.Box
		var depths []int
		for _, e := range chain {
			ids, agents = append(ids, e.Message.ID), append(agents, e.Agent)
			boxes, depths = append(boxes, e.Box), append(depths, e.Depth)
		}
		assert.Equal(t, want, ids, "the thread of %s", id)
		assert.Equal(t, []string{"bob", "alice", "carol", "alice", "dave"}, agents)
		assert.Equal(t, []store.Box{store.BoxProcessed, store.BoxProcessed, store.BoxProcessed, store.BoxProcessed,
			store.BoxInbox}, boxes)
		assert.Equal(t, []int{0, 1, 2, 3, 0}, depths)
	}
	_, err := view.Thread(testkit.Ctx(t), b, "no-such-message")
	assert.ErrorIs(t, err, view.ErrNotFound)
}

// testChannelRepliesOwed: a request is held (claimed) until it is
// answered; Archive refuses it with ErrReplyOwed and says how to answer;
// both sides show it in PendingReplies, and FindPending finds it in the
// store; the reply archives it (processed) and ends the wait on both
// sides.
func (s *suite) testChannelRepliesOwed(t *testing.T) {
	w := s.world(t)
	b := w.open(t, nil)
	browse := storetest.Has(t, s.feat.Browse(), b)
	critic, executor := w.startAgent(t, "critic", nil), w.startAgent(t, "executor", nil)
	id := critic.post(t, route.Request{To: "executor", Text: "why delete it?", Subject: "dead-code",
		ExpectsReply: true, TaskID: "task-1"})
	in := executor.recv(t)
	im := metaOf(t, in)
	assert.True(t, im.ExpectsReply)
	assert.NotNil(t, im.ReplyBy, "due after replyTimeout")

	owed := executor.ch.PendingReplies("")
	require.Len(t, owed.Owed, 1)
	assert.Equal(t, id, owed.Owed[0].MessageID)
	assert.Equal(t, "critic", owed.Owed[0].From)
	assert.Empty(t, owed.Awaited)
	awaited := critic.ch.PendingReplies("task-1")
	require.Len(t, awaited.Awaited, 1)
	assert.Equal(t, "executor", awaited.Awaited[0].To)
	assert.Empty(t, critic.ch.PendingReplies("task-2").Awaited, "per task")
	if browse {
		s.feat.AssertBoxes(t, b, "executor", map[string]store.Box{id: store.BoxClaimed})
		found, err := view.FindPending(testkit.Ctx(t), b, view.PendingFilter{Agent: "executor"})
		require.NoError(t, err)
		require.Len(t, found, 1)
		assert.Equal(t, id, found[0].MessageID)
		assert.Equal(t, store.BoxClaimed, found[0].Where.Box)
	}

	err := executor.ch.Archive(testkit.Ctx(t), id)
	require.ErrorIs(t, err, mailbox.ErrReplyOwed)
	assert.Contains(t, err.Error(), "reply first")
	require.NoError(t, executor.ch.Send(testkit.Ctx(t), busReply("critic", "it was unused", in.Metadata)))
	executor.events.WaitKind(t, store.EventProcessed, testkit.ByID(id))
	assert.Empty(t, executor.ch.PendingReplies("").Owed)
	rm := metaOf(t, critic.recv(t))
	assert.Equal(t, id, rm.ReplyTo)
	assert.Equal(t, id, rm.ThreadID)
	assert.Equal(t, "task-1", rm.TaskID)
	assert.Empty(t, critic.ch.PendingReplies("").Awaited, "the asker stops waiting")
	assert.ErrorIs(t, executor.ch.Archive(testkit.Ctx(t), id), mailbox.ErrNotHeld)
	if browse {
		critic.events.WaitKind(t, store.EventProcessed, testkit.ByID(rm.MessageID))
		s.feat.AssertBoxes(t, b, "executor", map[string]store.Box{id: store.BoxProcessed})
		found, err := view.FindPending(testkit.Ctx(t), b, view.PendingFilter{})
		require.NoError(t, err)
		assert.Empty(t, found)
	}
}

// replyFromElsewhere stores through be the reply agent `from` owes to
// request id of agent `to`, as the command line sends one on from's
// behalf, and returns its id.
func (w *world) replyFromElsewhere(t *testing.T, be *store.Store, from, to, id string) string {
	t.Helper()
	req := meta.FromMessage(&envelope.Message{ID: id, From: to, To: from, Type: envelope.TypeMessage, TTL: 2}, false)
	reply, err := route.Compose(from, route.Request{To: to, Text: "answered elsewhere"},
		route.ComposeOptions{Original: &req})
	require.NoError(t, err)
	key, err := keys.Load(testkit.Ctx(t), be, from, w.keySource(be, from)) // as the command line signs as from
	require.NoError(t, err)
	require.NoError(t, envelope.Sign(reply, key))
	storetest.Deliver(t, be, reply)
	return reply.ID
}

// testChannelReplyElsewhere: a reply to a held request stored by another
// process on the agent's behalf counts: Archive goes ahead. A held request
// answered that way while its agent was down is archived when the agent
// starts again, without being handed to it a second time.
func (s *suite) testChannelReplyElsewhere(t *testing.T) {
	w := s.world(t)
	b := w.open(t, nil)
	storetest.Need(t, s.feat.Browse(), b)
	critic := w.startAgent(t, "critic", nil)
	ev := testkit.NewEvents()
	be := w.open(t, ev.Observe)
	executor := w.startOn(t, be, ev, "executor", nil)

	first := critic.post(t, route.Request{To: "executor", Text: "why?", ExpectsReply: true})
	executor.recv(t)
	reply := w.replyFromElsewhere(t, w.open(t, nil), "executor", "critic", first)
	require.NoError(t, executor.ch.Archive(testkit.Ctx(t), first))
	s.feat.AssertBoxes(t, b, "executor", map[string]store.Box{first: store.BoxProcessed})
	assert.Empty(t, executor.ch.PendingReplies("").Owed)
	assert.Equal(t, reply, metaOf(t, critic.recv(t)).MessageID)
	assert.Empty(t, critic.ch.PendingReplies("").Awaited)

	second := critic.post(t, route.Request{To: "executor", Text: "and this?", ExpectsReply: true})
	require.Equal(t, second, metaOf(t, executor.recv(t)).MessageID)
	executor.stop(t)
	w.replyFromElsewhere(t, w.open(t, nil), "executor", "critic", second)
	executor = w.startOn(t, be, ev, "executor", nil)
	ev.WaitKind(t, store.EventProcessed, testkit.ByID(second))
	s.feat.AssertBoxes(t, b, "executor", map[string]store.Box{second: store.BoxProcessed})
	assert.Empty(t, executor.ch.PendingReplies("").Owed)
	later := critic.post(t, route.Request{To: "executor", Text: "next"})
	assert.Equal(t, later, metaOf(t, executor.recv(t)).MessageID, "the answered request was not handed over again")
}

// testChannelOverdue: when a request's reply_by passes on the asker's
// clock without a reply, the asker gets one notice, in the conversation
// the request was sent from (and, with an audit log, an EventOverdue is
// recorded); the request stays open, and a late reply is still taken and
// routed there.
func (s *suite) testChannelOverdue(t *testing.T) {
	w := s.world(t)
	clk := clock.NewManual(time.Now())
	critic := w.startClocked(t, "critic", clk, nil)
	executor := w.startAgent(t, "executor", nil)
	cb := &envelope.Callback{Channel: "feishu", ChatID: "u1", SessionID: "feishu:u1"}
	id := critic.post(t, route.Request{To: "executor", Text: "status?", Subject: "status", ExpectsReply: true,
		ReplyBy: clk.Now().Add(time.Hour), Callback: cb})
	in := executor.recv(t)

	clk.Add(2 * time.Hour)
	// A new request makes the channel read the due times again, at the new time.
	next := critic.post(t, route.Request{To: "executor", Text: "and later?", ExpectsReply: true})
	executor.recv(t)
	notice := critic.recv(t)
	assert.Equal(t, "feishu", notice.Channel)
	assert.Equal(t, "u1", notice.ChatID)
	assert.Equal(t, "feishu:u1", notice.SessionKey())
	assert.Contains(t, notice.Content, "executor has not replied to your request about status")
	nm := metaOf(t, notice)
	assert.Equal(t, meta.NoticeOverdue, nm.Notice)
	assert.Equal(t, id, nm.ReplyTo)
	notified := map[string]bool{}
	for _, p := range critic.ch.PendingReplies("").Awaited {
		notified[p.MessageID] = p.Notified
	}
	assert.Equal(t, map[string]bool{id: true, next: false}, notified, "both still open, one notice")
	if storetest.Has(t, s.feat.Audit(), critic.be) {
		e := critic.events.WaitKind(t, store.EventOverdue, testkit.ByID(id))
		assert.Equal(t, "executor", e.Agent)
	}

	require.NoError(t, executor.ch.Send(testkit.Ctx(t), busReply("critic", "done now", in.Metadata)))
	late := critic.recv(t)
	assert.Equal(t, "feishu", late.Channel, "the late reply goes to the conversation the request came from")
	assert.Equal(t, "done now", late.Content)
	awaited := critic.ch.PendingReplies("").Awaited
	require.Len(t, awaited, 1)
	assert.Equal(t, next, awaited[0].MessageID)
}
