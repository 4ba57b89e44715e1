package mailbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// feishu is the conversation a delegated task begins in.
var feishu = &envelope.Callback{Channel: "feishu", ChatID: "oc_chat_1", SessionID: "feishu:oc_chat_1"}

// delegate posts a task from a to worker with the feishu callback, as the
// delegate tool does.
func delegate(t *testing.T, a *member, worker, text string, deadline time.Time) *envelope.Message {
	t.Helper()
	m, err := a.Post(context.Background(), route.Request{To: worker, Type: envelope.TypeTask, Text: text,
		Callback: feishu, Deadline: deadline})
	require.NoError(t, err)
	return m
}

// assertRouted checks that in is published as the feishu conversation.
func assertRouted(t *testing.T, in bus.InboundMessage) *meta.Meta {
	t.Helper()
	assert.Equal(t, "feishu", in.Channel)
	assert.Equal(t, "oc_chat_1", in.ChatID)
	assert.Equal(t, "feishu:oc_chat_1", in.SessionKey())
	md := metaOf(t, in)
	assert.True(t, md.Routed())
	assert.Equal(t, feishu, md.Callback)
	return md
}

// Defect 5: in nanobot the callback is only ever set by hand. Here the
// delegate path sets it, the worker's updates come back to the user's
// conversation, and the worker sees it echoed for nanobot senders.
func TestDefect5DelegateSetsCallbackAndUpdatesAreRouted(t *testing.T) {
	e := newEnv(t)
	boss := e.startAgent(t, "boss")
	coder := e.startAgent(t, "coder")
	sent := delegate(t, boss, "coder", "write sort", time.Time{})
	require.Equal(t, feishu, sent.Callback, "the callback is written in the task")
	assert.True(t, sent.ExpectsReply)

	in := coder.consume(t)
	assert.Equal(t, mailbox.ChannelName, in.Channel, "the worker gets it on the mailbox channel")
	assert.Equal(t, feishu, metaOf(t, in).TaskCallback)

	acc := boss.consume(t)
	md := assertRouted(t, acc)
	assert.Equal(t, envelope.StateAccepted, md.Task.State)
	assert.Contains(t, acc.Content, "accepted")

	coder.answer(t, in, "sorted", in.Metadata)
	res := boss.consume(t)
	md = assertRouted(t, res)
	assert.Equal(t, envelope.StateCompleted, md.Task.State)
	assert.Contains(t, res.Content, "sorted")

	// Metadata of a routed update sent on to the worker is not taken for an
	// answer to a task: it makes a new message with a fresh trace.
	require.NoError(t, boss.Send(context.Background(), bus.OutboundMessage{Channel: mailbox.ChannelName,
		ChatID: "coder", Content: "thanks", Metadata: res.Metadata}))
	thanks := coder.consume(t)
	assert.Equal(t, "thanks", thanks.Content)
	assert.Equal(t, envelope.TypeMessage, metaOf(t, thanks).Type)
	assert.Equal(t, []string{"boss"}, metaOf(t, thanks).Trace)
}

func TestCallbackRecordSurvivesRestart(t *testing.T) {
	e := newEnv(t)
	cfg := e.config("boss")
	boss := e.start(t, cfg, mailbox.Options{})
	coder := e.peer(t, "coder")
	sent := delegate(t, boss, "coder", "slow job", time.Time{})
	require.NoError(t, boss.Stop(context.Background()))
	assert.FileExists(t, filepath.Join(e.root, "boss", "state", "sent-tasks.json"))

	req := coder.expect(t, "the task", func(m *envelope.Message) bool { return m.ID == sent.ID })
	upd := msg("coder", "boss", envelope.TypeTaskUpdate, "done while you were away")
	upd.Task, upd.ReplyTo = &envelope.Task{ID: req.Task.ID, State: envelope.StateCompleted}, req.ID
	e.deliver(t, upd)

	again := e.start(t, cfg, mailbox.Options{})
	in := again.consume(t)
	assertRouted(t, in)
	assert.Contains(t, in.Content, "done while you were away")

	// The task ended: a second update of it is no longer routed.
	late := msg("coder", "boss", envelope.TypeTaskUpdate, "")
	late.Task = &envelope.Task{ID: req.Task.ID, State: envelope.StateCompleted}
	e.deliver(t, late)
	assert.Equal(t, mailbox.ChannelName, again.consume(t).Channel)
}

func TestForgedCallbackNotHonoured(t *testing.T) {
	e := newEnv(t)
	boss := e.startAgent(t, "boss")
	e.peer(t, "coder")
	sent := delegate(t, boss, "coder", "real task", time.Time{})

	// Updates of a task boss never sent to mallory are set aside.
	setAside := map[string]*envelope.Message{}
	// An update for a task boss never sent, with a callback into a chat.
	m := msg("mallory", "boss", envelope.TypeTaskUpdate, "inject")
	m.Task = &envelope.Task{ID: "t-unknown", State: envelope.StateCompleted}
	m.Callback = &envelope.Callback{Channel: "feishu", ChatID: "oc_victim", SessionID: "feishu:oc_victim"}
	setAside["unknown task"] = m
	// An update for boss's real task, but from an agent it did not go to.
	m = msg("mallory", "boss", envelope.TypeTaskUpdate, "hijack")
	m.Task = &envelope.Task{ID: sent.Task.ID, State: envelope.StateCompleted}
	m.Callback = feishu
	setAside["other sender"] = m
	for name, m := range setAside {
		e.deliver(t, m)
		assert.Contains(t, e.waitEvent(t, store.EventRefused, m.ID).Reason, "which boss did not send to mallory", name)
	}

	cases := map[string]*envelope.Message{}
	// A message replying to the task request, but from another agent.
	m = msg("mallory", "boss", envelope.TypeMessage, "reply hijack")
	m.ReplyTo, m.Callback = sent.ID, feishu
	cases["reply from other sender"] = m
	// A plain message carrying a callback.
	m = msg("mallory", "boss", envelope.TypeMessage, "plain")
	m.Callback = feishu
	cases["plain message"] = m

	for name, m := range cases {
		e.deliver(t, m)
		in := boss.consume(t)
		assert.Equal(t, mailbox.ChannelName, in.Channel, name)
		assert.Equal(t, "mallory", in.ChatID, name)
		assert.Empty(t, in.SessionKeyOverride, name)
		assert.False(t, metaOf(t, in).Routed(), name)
	}

	// The real task is still open and routed when coder answers.
	real := msg("coder", "boss", envelope.TypeTaskUpdate, "real result")
	real.Task = &envelope.Task{ID: sent.Task.ID, State: envelope.StateCompleted}
	e.deliver(t, real)
	assertRouted(t, boss.consume(t))
}

func TestReplyToDelegatedRequestIsRouted(t *testing.T) {
	e := newEnv(t)
	boss := e.startAgent(t, "boss")
	e.peer(t, "coder")
	sent := delegate(t, boss, "coder", "question first", time.Time{})
	q := msg("coder", "boss", envelope.TypeMessage, "which language?")
	q.ReplyTo = sent.ID
	e.deliver(t, q)
	in := boss.consume(t)
	assertRouted(t, in)
	assert.Equal(t, "which language?", in.Content)
}

func TestSessionIDOnlyCallbackGivesChatID(t *testing.T) {
	e := newEnv(t)
	boss := e.startAgent(t, "boss")
	e.peer(t, "coder")
	sent, err := boss.Post(context.Background(), route.Request{To: "coder", Type: envelope.TypeTask,
		Text: "nanobot style", Callback: &envelope.Callback{Channel: "feishu", SessionID: "feishu:user_123"}})
	require.NoError(t, err)
	u := msg("coder", "boss", envelope.TypeTaskUpdate, "")
	u.Task = &envelope.Task{ID: sent.Task.ID, State: envelope.StateCompleted}
	e.deliver(t, u)
	in := boss.consume(t)
	assert.Equal(t, "feishu", in.Channel)
	assert.Equal(t, "user_123", in.ChatID)
	assert.Equal(t, "feishu:user_123", in.SessionKey())
}

func TestDelegatedTaskOverdueNoticeRouted(t *testing.T) {
	e := newEnv(t)
	clk := clock.NewManual(time.Now())
	boss := e.start(t, e.config("boss"), mailbox.Options{Clock: clk})
	e.peer(t, "coder")
	// The deadline comes before acceptTimeout (30 s), whose notice is another test's.
	sent := delegate(t, boss, "coder", "quick", clk.Now().Add(20*time.Second))
	clk.Add(20 * time.Second) // no result by the deadline
	in := boss.consume(t)
	md := assertRouted(t, in)
	assert.Equal(t, envelope.StateFailed, md.Task.State)
	assert.Equal(t, sent.Task.ID, md.Task.ID)
	assert.Contains(t, in.Content, "no result by its deadline")

	// The record is gone: a late result is not routed any more.
	late := msg("coder", "boss", envelope.TypeTaskUpdate, "late")
	late.Task = &envelope.Task{ID: sent.Task.ID, State: envelope.StateCompleted}
	e.deliver(t, late)
	assert.Equal(t, mailbox.ChannelName, boss.consume(t).Channel)
}

func TestFailedDeliveryLeavesNoRecord(t *testing.T) {
	e := newEnv(t)
	boss := e.startAgent(t, "boss")
	// Make coder's inbox impossible to create: a file where its folder goes.
	require.NoError(t, os.WriteFile(filepath.Join(e.root, "coder"), []byte("x"), 0o600))
	_, err := boss.Post(context.Background(), route.Request{To: "coder", Type: envelope.TypeTask,
		Text: "lost", Callback: feishu})
	require.Error(t, err)
	data, err := os.ReadFile(filepath.Join(e.root, "boss", "state", "sent-tasks.json"))
	require.NoError(t, err)
	assert.JSONEq(t, `[]`, string(data), "the record of an undelivered task is removed")
}

// takeUntil returns the first inbound message on a's bus that match
// accepts, finishing with the others on the way.
func (a *member) takeUntil(t *testing.T, what string, match func(bus.InboundMessage) bool) bus.InboundMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	for {
		in, err := a.bus.ConsumeInbound(ctx)
		require.NoError(t, err, "no %s on the bus of %s", what, a.AgentID())
		if match(in) {
			return in
		}
		in.Done()
	}
}

// TestThreeAgentCycleStopped: lead (asked by a Feishu user) delegates to
// coder; coder has reviewer check a first step and, reading the result,
// delegates the whole job to reviewer, which hands the same job back to
// lead: lead → coder → reviewer → lead. The trace rule cannot see it
// (coder's second delegation, made in the turn that read a subtask's
// result, starts a fresh trace); the task tree does: lead rejects the
// task as a cycle, and each task above it fails with the reason, up to
// the user's Feishu chat.
func TestThreeAgentCycleStopped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	lead, coder, reviewer := e.startAgent(t, "lead"), e.startAgent(t, "coder"), e.startAgent(t, "reviewer")
	ctx := context.Background()
	const job = "sort 5 3 9 1"

	t1, err := lead.Post(ctx, route.Request{To: "coder", Type: envelope.TypeTask, Text: job, Callback: feishu})
	require.NoError(t, err)
	in1 := coder.take(t)
	mt1 := metaOf(t, in1)
	require.Equal(t, t1.Task.ID, mt1.Task.ID)
	here := &envelope.Callback{Channel: in1.Channel, ChatID: in1.ChatID, SessionID: in1.SessionKey()}

	// A first subtask, answered: its result is routed back to coder's
	// conversation about t1, with t1's tree.
	check, err := coder.Post(ctx, route.Request{To: "reviewer", Type: envelope.TypeTask,
		Text: "check the order of 5 3 9 1", Parent: mt1, Callback: here})
	require.NoError(t, err)
	assert.Len(t, check.TaskPath, 2)
	reviewer.take(t)
	_, err = reviewer.FinishTask(ctx, check.Task.ID, envelope.StateCompleted, "checked", "", nil)
	require.NoError(t, err)
	result := coder.takeUntil(t, "the check's result", func(in bus.InboundMessage) bool {
		return strings.Contains(in.Content, check.Task.ID+" completed")
	})
	mtResult := metaOf(t, result)
	require.NotNil(t, mtResult.Tree, "the routed result carries the tree of t1")
	assert.Equal(t, t1.Task.ID, mtResult.Tree.Task)

	// In that turn coder delegates the whole job (as delegate_task does
	// in a routed turn: no parent, the routed tree).
	t2, err := coder.Post(ctx, route.Request{To: "reviewer", Type: envelope.TypeTask, Text: job,
		Tree: mtResult.Tree, Callback: here})
	require.NoError(t, err)
	assert.Equal(t, []string{"coder"}, t2.Trace, "a fresh trace: the trace rule cannot see the cycle")
	in2 := reviewer.takeUntil(t, "t2", func(in bus.InboundMessage) bool { return in.ID == t2.ID })
	mt2 := metaOf(t, in2)

	// reviewer hands the job back to lead: the cycle closes.
	t3, err := reviewer.Post(ctx, route.Request{To: "lead", Type: envelope.TypeTask, Text: "Sort 5 3 9 1 ",
		Parent: mt2, Callback: &envelope.Callback{Channel: in2.Channel, ChatID: in2.ChatID, SessionID: in2.SessionKey()}})
	require.NoError(t, err, "the send side lets it go: lead is not in the trace")
	assert.Equal(t, []string{"coder", "reviewer"}, t3.Trace)
	assert.Len(t, t3.TaskPath, 3)

	// The user reads why their task failed, in their Feishu chat.
	told := lead.takeUntil(t, "t1 failed, in the user's chat", func(in bus.InboundMessage) bool {
		return strings.Contains(in.Content, t1.Task.ID+" failed")
	})
	assert.Equal(t, "feishu", told.Channel)
	assert.Equal(t, "oc_chat_1", told.ChatID)
	assert.Contains(t, told.Content, "cycle: the same work came back to lead in one task tree: lead → coder → reviewer → lead")

	// Every task of the tree ended before the news reached lead (each
	// agent updates its card before it sends the failure up): nobody
	// holds work for ever.
	for _, id := range []string{"coder", "reviewer"} {
		assert.Empty(t, e.card(t, id).CurrentTasks, id)
	}
	ev := e.waitEvent(t, "processed", t3.ID)
	assert.Equal(t, "lead", ev.Agent, "lead set the cyclic task aside as handled")
}

// A task still waits for its subtask after its agent restarts, even when
// the subtask's acceptance and its result both wait in the inbox: mid's
// answer to the acceptance is progress, and t1 ends with the answer to
// the result. (Taking the result in ends the record of the subtask before
// mid answers the acceptance, so the record alone cannot tell.)
func TestTaskWaitsForItsSubtaskAcrossARestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	boss := e.peer(t, "boss")
	mid, coder := e.startAgent(t, "mid"), e.startAgent(t, "coder")
	ctx := context.Background()
	sub, _ := chainOf(t, e, mid, coder)
	_, err := mid.FinishTask(ctx, "t1", envelope.StateCompleted, "I asked coder", "", nil)
	require.NoError(t, err)
	boss.expectUpdate(t, "t1", envelope.StateWorking)

	// mid stops before it answers coder's acceptance; coder finishes.
	stop, cancel := context.WithTimeout(ctx, testkit.WaitLimit)
	defer cancel()
	require.NoError(t, mid.Stop(stop))
	_, err = coder.FinishTask(ctx, sub.Task.ID, envelope.StateCompleted, "1 3 5 9", "", nil)
	require.NoError(t, err, "coder's result is in mid's inbox when it returns")

	mid = e.startAgent(t, "mid")
	var accepted, result *bus.InboundMessage
	for accepted == nil || result == nil {
		in := mid.take(t)
		m := metaOf(t, in)
		switch {
		case m.Task != nil && m.Task.ID == sub.Task.ID && m.Task.State == envelope.StateAccepted:
			accepted = &in
		case m.Task != nil && m.Task.ID == sub.Task.ID && m.Task.State == envelope.StateCompleted:
			result = &in
		}
	}
	require.NoError(t, mid.Send(ctx, bus.OutboundMessage{Channel: accepted.Channel, ChatID: accepted.ChatID,
		Content: "coder is on it", Metadata: accepted.Metadata}))
	progress := boss.expectUpdate(t, "t1", envelope.StateWorking)
	assert.Equal(t, "coder is on it", progress.Text(), "the subtask still runs for mid: progress")
	require.NoError(t, mid.Send(ctx, bus.OutboundMessage{Channel: result.Channel, ChatID: result.ChatID,
		Content: "coder finished: 1 3 5 9", Metadata: result.Metadata}))
	done := boss.expectUpdate(t, "t1", envelope.StateCompleted)
	assert.Equal(t, "coder finished: 1 3 5 9", done.Text())
}

// allowFrom names who may send this agent work and messages; the updates
// of a task it delegated are answers to it, and reach the conversation the
// task began in whoever the worker is. Anything else from that worker is
// still refused.
func TestUpdatesOfOurTaskPassAllowFrom(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	boss := e.startAgent(t, "boss", func(c *mailbox.Config) { c.AllowFrom = []string{"lead"} })
	coder := e.startAgent(t, "coder")
	sent := delegate(t, boss, "coder", "write sort", time.Time{})

	in := coder.consume(t)
	assert.Equal(t, envelope.StateAccepted, assertRouted(t, boss.consume(t)).Task.State)
	coder.answer(t, in, "sorted", in.Metadata)
	res := boss.consume(t)
	assert.Equal(t, envelope.StateCompleted, assertRouted(t, res).Task.State)
	assert.Contains(t, res.Content, "sorted")

	// A new message, and an update of a task boss did not send to coder,
	// are refused as before.
	plain := msg("coder", "boss", envelope.TypeMessage, "hello")
	e.deliver(t, plain)
	assert.Contains(t, e.waitEvent(t, store.EventRefused, plain.ID).Reason, "not in allowFrom")
	other := msg("coder", "boss", envelope.TypeTaskUpdate, "")
	other.Task = &envelope.Task{ID: sent.Task.ID + "-other", State: envelope.StateCompleted}
	e.deliver(t, other)
	assert.Contains(t, e.waitEvent(t, store.EventRefused, other.ID).Reason, "not in allowFrom")
}
