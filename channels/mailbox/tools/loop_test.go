package tools_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/tools"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestScriptedLoopDelegates runs the user's side of the demo: the scripted
// provider delegates through the tools, and answers the user.
func TestScriptedLoopDelegates(t *testing.T) {
	fake := newFake()
	set, err := agentloop.NewTools(tools.Loop(tools.Caller{Mailbox: fake, KnownOnly: true, OnlineOnly: true})...)
	require.NoError(t, err)
	b := bus.New(8)
	l, err := agentloop.New(agentloop.Config{Workspace: t.TempDir(), Bus: b, Provider: scripted.New(), Tools: set})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(testkit.CtxFor(t, testkit.Steps(4))) // the loop runs for four exchanges
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()

	exchange := func(in bus.InboundMessage) bus.OutboundMessage {
		require.NoError(t, b.PublishInbound(ctx, in))
		out, err := b.ConsumeOutbound(ctx)
		require.NoError(t, err)
		return out
	}
	out := exchange(bus.InboundMessage{Channel: "feishu", ChatID: "u1", SenderID: "ou_1", Content: "ask coder to sort 5 3 9 1"})
	assert.Equal(t, "I asked coder to sort 5 3 9 1 (task task_1). I'll tell you when it's done.", out.Content)
	assert.Equal(t, "feishu", out.Channel)
	require.Len(t, fake.posts(), 1)
	assert.Equal(t, &envelope.Callback{Channel: "feishu", ChatID: "u1", SessionID: "feishu:u1"}, fake.posts()[0].Callback)

	out = exchange(bus.InboundMessage{Channel: "feishu", ChatID: "u1", Content: "ask someone who can paint to paint"})
	assert.Equal(t, `I could not delegate that: no online agent offers the capability "paint" (call list_agents to see who offers what)`, out.Content)

	out = exchange(bus.InboundMessage{Channel: "feishu", ChatID: "u1", Content: "who is online?"})
	assert.Equal(t, "Online agents: coder (sorting, counting; idle, 3 free slots); helper (counting; busy, 2 free slots).", out.Content)

	// A task for this agent, answered with the reply tool's help: the
	// scripted provider answers directly, which completes the task.
	mt := meta.Meta{MessageID: "m1", From: "coder", Type: envelope.TypeTask, Task: &envelope.Task{ID: "task_9"},
		Parts: []envelope.Part{envelope.TextPart("count words in a b c")}}
	out = exchange(bus.InboundMessage{Channel: mailbox.ChannelName, ChatID: "coder", SenderID: "coder",
		Content: "count words in a b c", Metadata: meta.With(nil, mt), Kind: bus.KindTask,
		Note: &bus.Note{Type: "task", From: "coder", TaskID: "task_9", Text: "count words in a b c"}})
	assert.Equal(t, "3", out.Content)
	assert.Equal(t, "coder", out.ChatID)

	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
}
