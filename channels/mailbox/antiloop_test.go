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

func TestNewSendAppendsTraceAndSpendsTTL(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder", func(c *mailbox.Config) { c.DefaultTTL = 4 })
	p := e.peer(t, "writer")
	sent, err := a.Post(context.Background(), route.Request{To: "writer", Text: "fresh"})
	require.NoError(t, err)
	got := p.expect(t, "fresh", func(m *envelope.Message) bool { return m.ID == sent.ID })
	assert.Equal(t, []string{"coder"}, got.Trace)
	assert.Equal(t, 3, got.TTL)
	assert.Equal(t, got.ID, got.ThreadID, "a new send starts a thread")
	assert.Empty(t, got.ReplyTo)

	sent, err = a.Post(context.Background(), route.Request{To: "writer", Text: "short", TTL: 1})
	require.NoError(t, err)
	assert.Equal(t, 0, sent.TTL)
}

func TestForwardAppendsTraceAndSpendsTTL(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	p := e.peer(t, "writer")
	m := msg("researcher", "coder", envelope.TypeMessage, "pass it on")
	m.TTL, m.Trace = 2, []string{"planner", "researcher"}
	e.deliver(t, m)
	parent := metaOf(t, a.consume(t))

	fwd, err := a.Post(context.Background(), route.Request{To: "writer", Text: "for you", Parent: parent})
	require.NoError(t, err)
	got := p.expect(t, "forward", func(x *envelope.Message) bool { return x.ID == fwd.ID })
	assert.Equal(t, []string{"planner", "researcher", "coder"}, got.Trace)
	assert.Equal(t, 1, got.TTL)
}

func TestSendRefusedWhenTargetInTrace(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	m := msg("researcher", "coder", envelope.TypeMessage, "from afar")
	m.Trace = []string{"planner", "researcher"}
	e.deliver(t, m)
	parent := metaOf(t, a.consume(t))

	_, err := a.Post(context.Background(), route.Request{To: "planner", Text: "back round", Parent: parent})
	assert.ErrorIs(t, err, route.ErrLoop, "A→B→C→A is refused")
	_, err = a.Post(context.Background(), route.Request{To: "planner", Type: envelope.TypeTask,
		Text: "do it", Parent: parent})
	assert.ErrorIs(t, err, route.ErrLoop)
	assert.NoDirExists(t, e.root+"/planner", "nothing was delivered")
}

func TestSendRefusedWhenTTLExhausted(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	m := msg("researcher", "coder", envelope.TypeMessage, "last hop")
	m.TTL = 0
	e.deliver(t, m)
	parent := metaOf(t, a.consume(t))
	_, err := a.Post(context.Background(), route.Request{To: "writer", Text: "again", Parent: parent})
	assert.ErrorIs(t, err, route.ErrTTLExhausted)
	assert.NoDirExists(t, e.root+"/writer")
}

// Defect 3: nanobot drops the agent's normal reply to a mailbox message as
// a "circular route" (the sender is in the trace). Here replies go back,
// keeping the trace, even with the ttl spent.
func TestDefect3ReplyIsNotALoop(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	p := e.peer(t, "researcher")
	m := msg("researcher", "coder", envelope.TypeMessage, "question")
	m.TTL, m.Trace = 0, []string{"researcher"}
	e.deliver(t, m)
	in := a.consume(t)

	// The agent loop's answer: an outbound message to the chat it came from,
	// with the inbound metadata copied along.
	require.NoError(t, a.Send(context.Background(), bus.OutboundMessage{Channel: in.Channel,
		ChatID: in.ChatID, Content: "answer", Metadata: in.Metadata}))
	r := p.expect(t, "reply", func(x *envelope.Message) bool { return x.Text() == "answer" })
	assert.Equal(t, m.ID, r.ReplyTo)
	assert.Equal(t, []string{"researcher"}, r.Trace, "a reply keeps the trace")
	assert.Equal(t, 0, r.TTL)
	assert.Equal(t, m.ID, r.ThreadID)
	assert.Equal(t, 1, r.HopCount)

	// Without metadata, reply_to alone makes it a reply (remembered message).
	require.NoError(t, a.Send(context.Background(), bus.OutboundMessage{Channel: mailbox.ChannelName,
		ChatID: "researcher", Content: "by reply_to", ReplyTo: m.ID}))
	r = p.expect(t, "reply_to reply", func(x *envelope.Message) bool { return x.Text() == "by reply_to" })
	assert.Equal(t, []string{"researcher"}, r.Trace)

	// Post with the received message as parent, as the reply tool does.
	_, err := a.Post(context.Background(), route.Request{To: "researcher", Text: "by tool",
		Parent: metaOf(t, in), ReplyTo: m.ID})
	require.NoError(t, err)
	p.expect(t, "tool reply", func(x *envelope.Message) bool { return x.Text() == "by tool" })

	// A task_update is always a reply, also for a task no longer remembered.
	_, err = a.Post(context.Background(), route.Request{To: "researcher", Type: envelope.TypeTaskUpdate,
		TaskID: "old", TaskState: envelope.StateWorking})
	require.NoError(t, err)
	p.expectUpdate(t, "old", envelope.StateWorking)
}

func TestReplyToSomeoneElseIsNotAReply(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	m := msg("researcher", "coder", envelope.TypeMessage, "question")
	m.TTL, m.Trace = 0, []string{"planner", "researcher"}
	e.deliver(t, m)
	a.consume(t)
	// reply_to names researcher's message, but the target is planner: this
	// is a forward, and planner is already in the trace.
	_, err := a.Post(context.Background(), route.Request{To: "planner", Text: "psst", ReplyTo: m.ID,
		Parent: &meta.Meta{MessageID: m.ID, From: "researcher", TTL: 0, Trace: m.Trace}})
	assert.ErrorIs(t, err, route.ErrLoop)
}

// The hop cap per thread stops two agents replying to each other for ever.
func TestHopCapStopsReplyPingPong(t *testing.T) {
	e := newEnv(t)
	hops := func(c *mailbox.Config) { c.MaxThreadHops = 3 }
	a := e.startAgent(t, "alice", hops)
	b := e.startAgent(t, "bob", hops)
	first, err := a.Post(context.Background(), route.Request{To: "bob", Text: "ping"})
	require.NoError(t, err)

	turn := []*member{b, a}
	var last *meta.Meta
	var sendErr error
	for i := 0; sendErr == nil; i++ {
		require.Less(t, i, 10, "the hop cap never stopped the exchange")
		me := turn[i%2]
		in := me.consume(t)
		last = metaOf(t, in)
		assert.Equal(t, first.ID, last.ThreadID, "every reply stays in the thread")
		sendErr = me.Send(context.Background(), bus.OutboundMessage{Channel: in.Channel,
			ChatID: in.ChatID, Content: "pong", Metadata: in.Metadata})
	}
	assert.ErrorIs(t, sendErr, route.ErrHopLimit)
	assert.Equal(t, 3, last.HopCount)
}

// Defect 4: in nanobot a message whose trace or ttl is null or missing
// crashes the agent that replies to it.
func TestDefect4NullTraceAndTTLCanBeAnswered(t *testing.T) {
	cases := map[string]string{
		"null": `{"id": "msg_1745659260_researcher", "from": "researcher", "to": "coder",
			"timestamp": "2026-04-26T10:01:00.654321+00:00", "type": "message", "ttl": null,
			"trace": null, "task": null, "callback": null, "reply_to": null, "metadata": null,
			"content": {"parts": [{"type": "text", "text": "null"}]}}`,
		"missing": `{"id": "msg_1745659261_researcher", "from": "researcher", "to": "coder",
			"timestamp": "2026-04-26T10:01:01+00:00", "type": "message",
			"content": {"parts": [{"type": "text", "text": "missing"}]}}`,
	}
	for name, raw := range cases {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			a := e.startAgent(t, "coder")
			p := e.peer(t, "researcher")
			e.deliverRaw(t, "coder", "researcher", raw)
			in := a.consume(t)
			assert.Equal(t, name, in.Content)
			md := metaOf(t, in)
			assert.Empty(t, md.Trace)
			assert.Equal(t, envelope.DefaultTTL, md.TTL, "a missing ttl is the default budget")

			require.NoError(t, a.Send(context.Background(), bus.OutboundMessage{Channel: in.Channel,
				ChatID: in.ChatID, Content: "answer", Metadata: in.Metadata}))
			r := p.expect(t, "answer", func(x *envelope.Message) bool { return x.Text() == "answer" })
			assert.Equal(t, md.MessageID, r.ReplyTo)
			assert.NotNil(t, r.Trace)

			// And a task with null trace and ttl is answered too.
			e.deliverRaw(t, "coder", "researcher", `{"id": "msg_1_researcher", "from": "researcher",
				"to": "coder", "timestamp": "2026-04-26T10:02:00+00:00", "type": "task", "ttl": null,
				"trace": null, "task": {"id": "t-null", "state": "pending", "deadline": null}}`)
			p.expectUpdate(t, "t-null", envelope.StateAccepted)
			tin := a.consume(t)
			require.NoError(t, a.Send(context.Background(), bus.OutboundMessage{Channel: tin.Channel,
				ChatID: tin.ChatID, Content: "done", Metadata: tin.Metadata}))
			p.expectUpdate(t, "t-null", envelope.StateCompleted)
		})
	}
}

// convT0 is the time the conversation tests start at.
var convT0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
