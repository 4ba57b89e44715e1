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
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
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

	cases := map[string]*envelope.Message{}
	// An update for a task boss never sent, with a callback into a chat.
	m := msg("mallory", "boss", envelope.TypeTaskUpdate, "inject")
	m.Task = &envelope.Task{ID: "t-unknown", State: envelope.StateCompleted}
	m.Callback = &envelope.Callback{Channel: "feishu", ChatID: "oc_victim", SessionID: "feishu:oc_victim"}
	cases["unknown task"] = m
	// An update for boss's real task, but from an agent it did not go to.
	m = msg("mallory", "boss", envelope.TypeTaskUpdate, "hijack")
	m.Task = &envelope.Task{ID: sent.Task.ID, State: envelope.StateCompleted}
	m.Callback = feishu
	cases["other sender"] = m
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
