package mailbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

func TestSendNewMessageToAgent(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	p := e.peer(t, "writer")
	require.NoError(t, a.Send(context.Background(), bus.OutboundMessage{Channel: mailbox.ChannelName,
		ChatID: "writer", Content: "draft ready", Media: []string{"/tmp/draft.md"}}))
	got := p.expect(t, "new message", func(m *envelope.Message) bool { return m.Text() == "draft ready" })
	assert.Equal(t, "coder", got.From)
	assert.Equal(t, "writer", got.To)
	assert.Equal(t, envelope.TypeMessage, got.Type)
	assert.Equal(t, []string{"coder"}, got.Trace, "a new send gets a fresh trace")
	assert.Equal(t, envelope.DefaultTTL-1, got.TTL)
	assert.Empty(t, got.ReplyTo)
	assert.Equal(t, []envelope.Part{envelope.TextPart("draft ready"), envelope.FilePart("/tmp/draft.md")},
		got.Content.Parts)
	assert.True(t, envelope.IsOwnID(got.ID))
}

func TestSendToUnregisteredAgentQueues(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	require.NoError(t, a.Send(context.Background(), bus.OutboundMessage{Channel: mailbox.ChannelName,
		ChatID: "sleeper", Content: "for later"}))
	depth, err := e.store.Depth("sleeper")
	require.NoError(t, err)
	assert.Equal(t, 1, depth, "the message waits in the inbox")

	sleeper := e.startAgent(t, "sleeper")
	assert.Equal(t, "for later", sleeper.consume(t).Content)
}

func TestSendReplyKeepsTraceNewSendGetsFreshTrace(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	p := e.peer(t, "researcher")
	m := msg("researcher", "coder", envelope.TypeMessage, "hi")
	m.Trace, m.TTL = []string{"planner", "researcher"}, 1
	e.deliver(t, m)
	in := a.consume(t)

	a.answer(t, in, "reply", in.Metadata)
	r := p.expect(t, "reply", func(x *envelope.Message) bool { return x.Text() == "reply" })
	assert.Equal(t, []string{"planner", "researcher"}, r.Trace)
	assert.Equal(t, 1, r.TTL)
	assert.Equal(t, m.ID, r.ReplyTo)

	a.answer(t, in, "unprompted", nil)
	n := p.expect(t, "new", func(x *envelope.Message) bool { return x.Text() == "unprompted" })
	assert.Equal(t, []string{"coder"}, n.Trace)
	assert.Empty(t, n.ReplyTo)
	assert.NotEqual(t, r.ThreadID, n.ThreadID)
}

func TestSendForwardWithMetadataOfAnotherAgent(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	p := e.peer(t, "writer")
	m := msg("researcher", "coder", envelope.TypeMessage, "pass on")
	e.deliver(t, m)
	in := a.consume(t)
	require.NoError(t, a.Send(context.Background(), bus.OutboundMessage{Channel: mailbox.ChannelName,
		ChatID: "writer", Content: "forwarded", Metadata: in.Metadata}))
	f := p.expect(t, "forward", func(x *envelope.Message) bool { return x.Text() == "forwarded" })
	assert.Equal(t, []string{"researcher", "coder"}, f.Trace)
	assert.Equal(t, m.TTL-1, f.TTL)

	err := a.Send(context.Background(), bus.OutboundMessage{Channel: mailbox.ChannelName,
		ChatID: "researcher", Content: "back", Metadata: meta.With(nil, meta.Meta{
			MessageID: "x", From: "writer", TTL: 2, Trace: []string{"researcher", "writer"}})})
	assert.ErrorIs(t, err, route.ErrLoop)
}

func TestSendRefusesBadTarget(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	for _, chat := range []string{"", "../etc", "a/b", "feishu:oc_1"} {
		err := a.Send(context.Background(), bus.OutboundMessage{Channel: mailbox.ChannelName, ChatID: chat,
			Content: "x"})
		assert.Error(t, err, "chat id %q", chat)
	}
	_, err := a.Post(context.Background(), route.Request{To: "writer", Type: "shout"})
	assert.Error(t, err)
	_, err = a.Post(context.Background(), route.Request{To: "writer", Type: envelope.TypeTaskUpdate})
	assert.ErrorContains(t, err, "task id required")
}

func TestSendBeforeStartIsRefused(t *testing.T) {
	e := newEnv(t)
	ch, err := mailbox.New(e.config("coder"), bus.New(1), mailbox.Options{Backend: e.st})
	require.NoError(t, err)
	err = ch.Send(context.Background(), bus.OutboundMessage{Channel: mailbox.ChannelName, ChatID: "writer",
		Content: "too early"})
	assert.ErrorIs(t, err, mailbox.ErrNotRunning)
	assert.Equal(t, "coder", ch.AgentID())
	assert.Equal(t, "coder", ch.Config().AgentID)
	assert.Equal(t, mailbox.ChannelName, ch.Name())
}

func TestPostTaskFields(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "boss")
	p := e.peer(t, "coder")
	deadline := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	sent, err := a.Post(context.Background(), route.Request{To: "coder", Type: envelope.TypeTask,
		Text: "build", Parts: []envelope.Part{envelope.DataPart(map[string]any{"n": 1.0})},
		TaskID: "my-task", Deadline: deadline, Subject: "build-it", Priority: 3})
	require.NoError(t, err)
	got := p.expect(t, "task", func(m *envelope.Message) bool { return m.ID == sent.ID })
	assert.Equal(t, envelope.TypeTask, got.Type)
	assert.Equal(t, "my-task", got.Task.ID)
	assert.Equal(t, envelope.StatePending, got.Task.State)
	require.NotNil(t, got.Task.Deadline)
	assert.True(t, got.Task.Deadline.Equal(deadline))
	assert.True(t, got.ExpectsReply)
	assert.Equal(t, "build-it", got.Subject)
	assert.Equal(t, 3, got.Priority)
	assert.Equal(t, "build", got.Text())
	assert.Len(t, got.Content.Parts, 2)
	assert.Nil(t, got.Callback)

	auto, err := a.Post(context.Background(), route.Request{To: "coder", Type: envelope.TypeTask, Text: "x"})
	require.NoError(t, err)
	assert.Equal(t, "task_"+auto.ID, auto.Task.ID, "a task without an id gets a fresh one")
}
