package mailbox_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// boxOf returns which of agent's folders holds a file of message id.
func (w *convWorld) boxOf(agent, id string) store.Box {
	w.t.Helper()
	var box store.Box
	require.NoError(w.t, w.store.Browse(context.Background(), func(s store.Stored) bool {
		if s.Agent == agent && s.Message.ID == id {
			box = s.Box
			return false
		}
		return true
	}))
	return box
}

// A request stays claimed while it is owed a reply; archiving it is
// refused with a clear error; the reply archives it, and the asker stops
// waiting.
func TestRequestIsHeldUntilAnswered(t *testing.T) {
	w := newConvWorld(t)
	critic, executor := w.start("critic"), w.start("executor")
	id := critic.post(t, route.Request{To: "executor", Text: "did you mean to delete it?", Subject: "dead-code",
		ExpectsReply: true, TaskID: "task_1"})
	in := executor.next(t)
	mt, ok := meta.Of(in.Metadata)
	require.True(t, ok)
	assert.True(t, mt.ExpectsReply)
	assert.Equal(t, "task_1", mt.TaskID)
	require.NotNil(t, mt.ReplyBy, "due after replyTimeout")
	w.seen.waitFor(t, store.EventDelivered, id)
	assert.Equal(t, store.BoxClaimed, w.boxOf("executor", id), "held, not archived")

	owed := executor.PendingReplies("")
	require.Len(t, owed.Owed, 1)
	assert.Equal(t, id, owed.Owed[0].MessageID)
	assert.Equal(t, "critic", owed.Owed[0].From)
	assert.Empty(t, owed.Awaited)
	awaited := critic.PendingReplies("task_1")
	require.Len(t, awaited.Awaited, 1)
	assert.Equal(t, "executor", awaited.Awaited[0].To)
	assert.Empty(t, critic.PendingReplies("task_2").Awaited, "per task")

	err := executor.Archive(context.Background(), id)
	require.ErrorIs(t, err, mailbox.ErrReplyOwed)
	assert.Contains(t, err.Error(), "critic asked about dead-code")
	assert.Contains(t, err.Error(), "reply first")
	assert.Equal(t, store.BoxClaimed, w.boxOf("executor", id), "nothing moved")

	// The agent loop answers through Send, with the inbound metadata.
	require.NoError(t, executor.Send(context.Background(), bus.OutboundMessage{Channel: mailbox.ChannelName,
		ChatID: "critic", Content: "yes, it was unused", Metadata: in.Metadata}))
	w.seen.waitFor(t, store.EventProcessed, id)
	assert.Equal(t, store.BoxProcessed, w.boxOf("executor", id), "the reply archived the request")
	assert.Empty(t, executor.PendingReplies("").Owed)

	reply := critic.next(t)
	rmeta, _ := meta.Of(reply.Metadata)
	assert.Equal(t, id, rmeta.ReplyTo)
	assert.Equal(t, id, rmeta.ThreadID)
	assert.Equal(t, "task_1", rmeta.TaskID)
	w.seen.waitFor(t, store.EventProcessed, rmeta.MessageID)
	assert.Empty(t, critic.PendingReplies("").Awaited, "the asker stops waiting")
	assert.ErrorIs(t, executor.Archive(context.Background(), id), mailbox.ErrNotHeld)
}

// A notice is archived at once; Archive says it holds nothing.
func TestNoticeIsArchivedOnHandOff(t *testing.T) {
	w := newConvWorld(t)
	critic, executor := w.start("critic"), w.start("executor")
	id := critic.post(t, route.Request{To: "executor", Text: "fyi"})
	executor.next(t)
	w.seen.waitFor(t, store.EventProcessed, id)
	assert.Empty(t, critic.PendingReplies("").Awaited)
	err := executor.Archive(context.Background(), id)
	assert.ErrorIs(t, err, mailbox.ErrNotHeld)
}

// A reply stored by another path (the command line, or before a crash)
// lets Archive go ahead.
func TestArchiveAfterAReplySentElsewhere(t *testing.T) {
	w := newConvWorld(t)
	critic, executor := w.start("critic"), w.start("executor")
	id := critic.post(t, route.Request{To: "executor", Text: "why?", ExpectsReply: true})
	executor.next(t)
	req := meta.FromMessage(&envelope.Message{ID: id, From: "critic", To: "executor", Type: envelope.TypeMessage, TTL: 2}, false)
	reply, err := route.Compose("executor", route.Request{To: "critic", Text: "because"}, route.ComposeOptions{Original: &req})
	require.NoError(t, err)
	signIfKeyed(t, w.st, reply) // as the command line sends as executor
	require.NoError(t, w.store.Deliver(context.Background(), reply))
	require.NoError(t, executor.Archive(context.Background(), id))
	assert.Equal(t, store.BoxProcessed, w.boxOf("executor", id))
	assert.Empty(t, executor.PendingReplies("").Owed)
}

// An unanswered request comes back after a restart and is held again.
func TestHeldRequestComesBackAfterRestart(t *testing.T) {
	w := newConvWorld(t)
	critic, executor := w.start("critic"), w.start("executor")
	id := critic.post(t, route.Request{To: "executor", Text: "why?", ExpectsReply: true})
	executor.next(t)
	executor.stop(t)
	critic.stop(t)

	critic = w.start("critic")
	require.Len(t, critic.PendingReplies("").Awaited, 1, "the asker still waits after a restart")
	executor = w.start("executor")
	in := executor.next(t)
	mt, _ := meta.Of(in.Metadata)
	assert.Equal(t, id, mt.MessageID)
	assert.True(t, mt.Redelivered)
	require.Len(t, executor.PendingReplies("").Owed, 1)
}

// A held request answered while its agent was down (from the command
// line, or by the agent just before a crash) is archived when it comes
// back, not handed to the agent a second time.
func TestAnsweredHeldRequestIsNotHandedAgain(t *testing.T) {
	w := newConvWorld(t)
	critic, executor := w.start("critic"), w.start("executor")
	id := critic.post(t, route.Request{To: "executor", Text: "why?", ExpectsReply: true})
	executor.next(t)
	executor.stop(t)
	req := meta.FromMessage(&envelope.Message{ID: id, From: "critic", To: "executor", Type: envelope.TypeMessage, TTL: 2}, false)
	reply, err := route.Compose("executor", route.Request{To: "critic", Text: "because"}, route.ComposeOptions{Original: &req})
	require.NoError(t, err)
	signIfKeyed(t, w.st, reply) // as the command line sends as executor
	require.NoError(t, w.store.Deliver(context.Background(), reply))

	executor = w.start("executor")
	w.seen.waitFor(t, store.EventProcessed, id)
	assert.Equal(t, store.BoxProcessed, w.boxOf("executor", id))
	assert.Empty(t, executor.PendingReplies("").Owed)
	later := critic.post(t, route.Request{To: "executor", Text: "next"})
	in := executor.next(t)
	mt, _ := meta.Of(in.Metadata)
	assert.Equal(t, later, mt.MessageID, "the answered request was not handed over again")
}

// A reply that does not come by its due time becomes a notice to the
// asker, in the conversation the request was sent from; a late reply is
// still taken and routed there.
func TestOverdueReplyBecomesANotice(t *testing.T) {
	w := newConvWorld(t)
	critic, executor := w.start("critic"), w.start("executor")
	cb := &envelope.Callback{Channel: "feishu", ChatID: "u1", SessionID: "feishu:u1"}
	id := critic.post(t, route.Request{To: "executor", Text: "status?", Subject: "status", ExpectsReply: true,
		ReplyBy: w.clock.Now().Add(time.Hour), Callback: cb})
	in := executor.next(t)

	w.clock.Add(2 * time.Hour)
	notice := critic.next(t)
	assert.Equal(t, "feishu", notice.Channel)
	assert.Equal(t, "u1", notice.ChatID)
	assert.Equal(t, "feishu:u1", notice.SessionKey())
	assert.Contains(t, notice.Content, "executor has not replied to your request about status")
	nm, _ := meta.Of(notice.Metadata)
	assert.Equal(t, meta.NoticeOverdue, nm.Notice)
	assert.Equal(t, id, nm.ReplyTo)
	ev := w.seen.waitFor(t, store.EventOverdue, id)
	assert.Equal(t, "executor", ev.Agent)
	p := critic.PendingReplies("").Awaited
	require.Len(t, p, 1, "still open")
	assert.True(t, p[0].Notified)

	require.NoError(t, executor.Send(context.Background(), bus.OutboundMessage{Channel: mailbox.ChannelName,
		ChatID: "critic", Content: "done now", Metadata: in.Metadata}))
	late := critic.next(t)
	assert.Equal(t, "feishu", late.Channel, "the reply goes to the conversation the request came from")
	assert.Equal(t, "done now", late.Content)
	lm, _ := meta.Of(late.Metadata)
	w.seen.waitFor(t, store.EventProcessed, lm.MessageID)
	assert.Empty(t, critic.PendingReplies("").Awaited)
}

// Without a callback the notice reaches the agent itself, as a message
// from the agent that owes the reply; it is given once.
func TestOverdueNoticeWithoutCallback(t *testing.T) {
	w := newConvWorld(t)
	critic, _ := w.start("critic"), w.start("executor")
	id := critic.post(t, route.Request{To: "executor", Text: "status?", ExpectsReply: true})
	w.clock.Add(2 * time.Hour) // past replyTimeout (1h)
	notice := critic.next(t)
	assert.Equal(t, mailbox.ChannelName, notice.Channel)
	assert.Equal(t, "executor", notice.ChatID)
	w.seen.waitFor(t, store.EventOverdue, id)
	p := critic.PendingReplies("").Awaited
	require.Len(t, p, 1)
	assert.True(t, p[0].Notified, "no second notice is due")
}

// convStore opens a filesystem store on a fresh root.
func convStore(t *testing.T) *fsstore.Store {
	t.Helper()
	s, err := fsstore.Open(fsstore.Options{Root: filepath.Join(t.TempDir(), "mb"), NoSync: true, PollInterval: time.Hour})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// convCompose composes a message from `from` at `at`, as a reply to orig
// when given, failing the test on error.
func convCompose(t *testing.T, from string, req route.Request, at time.Time, orig *envelope.Message) *envelope.Message {
	t.Helper()
	opts := route.ComposeOptions{Now: at}
	if orig != nil {
		m := meta.FromMessage(orig, false)
		opts.Original = &m
	}
	msg, err := route.Compose(from, req, opts)
	require.NoError(t, err)
	return msg
}

// convTake delivers m and claims it from its recipient's inbox, which
// the test then owns.
func convTake(t *testing.T, s *fsstore.Store, m *envelope.Message) (driver.Inbox, *store.Delivery) {
	t.Helper()
	ctx := context.Background()
	require.NoError(t, s.Deliver(ctx, m))
	in, err := s.OpenInbox(ctx, m.To)
	require.NoError(t, err)
	t.Cleanup(func() { in.Close() })
	wait, cancel := context.WithTimeout(ctx, testkit.WaitLimit)
	defer cancel()
	d, err := in.Next(wait)
	require.NoError(t, err)
	require.Equal(t, m.ID, d.Message.ID)
	return in, d
}

// A thread spread over processed/, archive/, claimed/ and inbox/ of two
// agents reads back whole, in causal order even where a clock was behind,
// with each message once.
func TestThreadSpreadOverTheTree(t *testing.T) {
	s := convStore(t)
	ctx := context.Background()
	m1 := convCompose(t, "critic", route.Request{To: "executor", Text: "why delete it?", Subject: "dead-code", ExpectsReply: true}, convT0, nil)
	in1, d1 := convTake(t, s, m1)
	require.NoError(t, in1.Ack(ctx, d1)) // executor/processed
	require.NoError(t, in1.Close())

	m2 := convCompose(t, "executor", route.Request{To: "critic", Text: "unused"}, convT0.Add(time.Minute), m1)
	in2, d2 := convTake(t, s, m2)
	require.NoError(t, in2.Ack(ctx, d2))
	require.NoError(t, in2.Close())
	// critic/processed → critic/archive/by-task/task_1 (as a task sweep leaves it)
	name := filepath.Base(processedRef(t, s, "critic", m2.ID))
	archived := filepath.Join(s.Root(), "critic", "archive", "by-task", "task_1")
	require.NoError(t, os.MkdirAll(archived, 0o700))
	require.NoError(t, os.Rename(filepath.Join(s.Root(), "critic", "processed", name), filepath.Join(archived, name)))

	m3 := convCompose(t, "critic", route.Request{To: "executor", Text: "sure?", ExpectsReply: true}, convT0.Add(2*time.Minute), m2)
	convTake(t, s, m3) // executor/claimed
	// executor's clock is behind: its answer carries an earlier timestamp.
	m4 := convCompose(t, "executor", route.Request{To: "critic", Text: "yes"}, convT0.Add(90*time.Second), m3)
	require.NoError(t, s.Deliver(ctx, m4)) // critic/inbox

	other := convCompose(t, "critic", route.Request{To: "executor", Text: "unrelated"}, convT0.Add(30*time.Second), nil)
	require.NoError(t, s.Deliver(ctx, other))
	// A duplicate copy of m1 in processed/ (a retried delivery).
	dup := filepath.Join(s.Root(), "executor", "processed", "x_dup.msg.json")
	data, err := envelope.Encode(m1)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dup, data, 0o600))

	for _, id := range []string{m1.ID, m2.ID, m3.ID, m4.ID} {
		chain, err := view.Thread(ctx, store.New(s, nil), id)
		require.NoError(t, err)
		var ids []string
		var boxes []store.Box
		var depths []int
		for _, e := range chain {
			ids, boxes, depths = append(ids, e.Message.ID), append(boxes, e.Box), append(depths, e.Depth)
		}
		assert.Equal(t, []string{m1.ID, m2.ID, m3.ID, m4.ID}, ids, "from %s", id)
		assert.Equal(t, []store.Box{store.BoxProcessed, store.BoxArchive, store.BoxClaimed, store.BoxInbox}, boxes)
		assert.Equal(t, []int{0, 1, 2, 3}, depths)
		assert.Equal(t, "critic", chain[1].Agent)
	}

	_, err = view.Thread(ctx, store.New(s, nil), "nope")
	assert.ErrorIs(t, err, view.ErrNotFound)
}

// Messages joined by thread id alone (a broadcast's copies, a message sent
// into the thread) belong to it too.
func TestThreadJoinsByThreadID(t *testing.T) {
	s := convStore(t)
	ctx := context.Background()
	a := convCompose(t, "lead", route.Request{To: "coder-1", Text: "standup"}, convT0, nil)
	b := convCompose(t, "lead", route.Request{To: "coder-2", Text: "standup", ThreadID: a.ID}, convT0, nil)
	c := convCompose(t, "coder-2", route.Request{To: "lead", Text: "done"}, convT0.Add(time.Second), b)
	for _, m := range []*envelope.Message{a, b, c} {
		require.NoError(t, s.Deliver(ctx, m))
	}
	chain, err := view.Thread(ctx, store.New(s, nil), c.ID)
	require.NoError(t, err)
	require.Len(t, chain, 3)
	assert.Equal(t, []int{0, 0, 1}, []int{chain[0].Depth, chain[1].Depth, chain[2].Depth})
	assert.Equal(t, c.ID, chain[2].Message.ID)
}

// processedRef returns the path of message id in agent's processed/.
func processedRef(t *testing.T, s *fsstore.Store, agent, id string) string {
	t.Helper()
	var ref string
	require.NoError(t, s.Browse(context.Background(), func(st store.Stored) bool {
		if st.Agent == agent && st.Box == store.BoxProcessed && st.Message.ID == id {
			ref = st.Ref
			return false
		}
		return true
	}))
	require.NotEmpty(t, ref)
	return ref
}
