package mailbox_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
	"github.com/switchboard-dev/switchboard/internal/testkit"
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
			p := e.nanobot(t, "researcher")
			e.deliverRaw(t, "coder", "researcher", raw)
			in := a.consume(t)
			assert.Equal(t, name, in.Content)
			md := metaOf(t, in)
			assert.True(t, md.Unverified, "nanobot's message comes unsigned")
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

func TestPostToFansOutUnderTheLoopRules(t *testing.T) {
	w := newConvWorld(t)
	lead := w.start("lead")
	convCards(t, w)

	out, err := lead.PostTo(context.Background(), "cap:code", route.Request{Text: "standup in 5", Subject: "standup"})
	require.NoError(t, err)
	require.Len(t, out.Sent, 3)
	for i, to := range []string{"coder-1", "coder-2", "coder-3"} {
		assert.Equal(t, to, out.Sent[i].To)
		assert.Equal(t, out.Sent[0].ID, out.Sent[i].ThreadID, "one thread")
		assert.Equal(t, "standup", out.Sent[i].Subject)
	}
	assert.Empty(t, out.Skipped)

	// A forward of a message that passed coder-2 skips coder-2.
	parent := &meta.Meta{MessageID: "m0", From: "planner", To: "lead", Type: envelope.TypeMessage, TTL: 2,
		Trace: []string{"coder-2", "planner"}}
	out, err = lead.PostTo(context.Background(), "role:dev", route.Request{Text: "fyi", Parent: parent})
	require.NoError(t, err)
	require.Len(t, out.Sent, 1)
	assert.Equal(t, "coder-1", out.Sent[0].To)
	require.Len(t, out.Skipped, 1)
	assert.Equal(t, "coder-2", out.Skipped[0].To)
	assert.True(t, errors.Is(out.Skipped[0].Err, route.ErrLoop))

	_, err = lead.PostTo(context.Background(), "coder-2", route.Request{Text: "x", Parent: parent})
	assert.ErrorIs(t, err, route.ErrLoop, "nobody left to send to")
	_, err = lead.PostTo(context.Background(), "cap:code", route.Request{Type: envelope.TypeTask, Text: "x", TaskID: "t1"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a task id names one task, for one agent")
	_, err = lead.PostTo(context.Background(), "cap:nothing", route.Request{Text: "x"})
	assert.ErrorIs(t, err, route.ErrUnknownTarget)

	n := 0
	require.NoError(t, w.store.Browse(context.Background(), func(s store.Stored) bool { n++; return true }))
	assert.Equal(t, 4, n, "only the sends that went through were delivered")
}

// A bare name that is an agent with an inbox (not registered yet) names
// that agent, even when others hold a capability of that name.
func TestPostToBareNameWithAnInbox(t *testing.T) {
	w := newConvWorld(t)
	lead := w.start("lead")
	convCards(t, w)
	out, err := lead.PostTo(context.Background(), "review", route.Request{Text: "x"})
	require.NoError(t, err)
	assert.Len(t, out.Sent, 2, "the holders of capability review")

	first, err := route.Compose("planner", route.Request{To: "review", Text: "hello"}, route.ComposeOptions{})
	require.NoError(t, err)
	require.NoError(t, w.store.Deliver(context.Background(), first))
	out, err = lead.PostTo(context.Background(), "review", route.Request{Text: "x"})
	require.NoError(t, err)
	require.Len(t, out.Sent, 1)
	assert.Equal(t, "review", out.Sent[0].To, "the agent whose inbox it is")
}

func TestDiscoveryByRole(t *testing.T) {
	w := newConvWorld(t)
	lead := w.start("lead")
	convCards(t, w)
	devs, err := lead.FindByRole(context.Background(), "dev")
	require.NoError(t, err)
	require.Len(t, devs, 2)
	assert.Equal(t, "coder-2", devs[0].AgentID, "most free slots first")

	agents, err := lead.Agents(context.Background(), false)
	require.NoError(t, err)
	assert.Equal(t, []view.RoleCount{
		{Role: "", Agents: 1, Online: 0},
		{Role: "dev", Agents: 2, Online: 2},
		{Role: "planner", Agents: 1, Online: 1},
		{Role: "reviewer", Agents: 1, Online: 1},
	}, view.RoleSummary(agents))
}

// convCards registers testkit.Team on the world's store.
func convCards(t *testing.T, w *convWorld) {
	t.Helper()
	for _, c := range testkit.Team(w.clock.Now()) {
		_, err := w.store.UpdateCard(context.Background(), c.AgentID, func(card *envelope.Card) { *card = c })
		require.NoError(t, err)
	}
}
