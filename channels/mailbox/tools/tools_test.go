package tools_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/tools"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

var clock = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// loopCaller is how the agent loop calls the tools over mb (the mailbox
// channel's Tools).
func loopCaller(mb tools.Mailbox) tools.Caller {
	return tools.Caller{Mailbox: mb, KnownOnly: true, OnlineOnly: true, Now: func() time.Time { return clock }}
}

// tool returns the named loop tool over mb.
func tool(t *testing.T, mb tools.Mailbox, name string) agent.Tool {
	t.Helper()
	set, err := agentloop.NewTools(tools.Loop(loopCaller(mb))...)
	require.NoError(t, err)
	tl, ok := set.Get(name)
	require.True(t, ok)
	return tl
}

func run(t *testing.T, tl agent.Tool, turn *agent.Turn, args string) (string, error) {
	t.Helper()
	return tl.Execute(context.Background(), agent.Call{ID: "c1", Name: tl.Name(), Arguments: args, Turn: turn})
}

// fromUser is a turn handling a user's message on feishu.
func fromUser() *agent.Turn {
	return agent.NewTurn(bus.InboundMessage{Channel: "feishu", ChatID: "u1", SenderID: "ou_1", Content: "hi"})
}

// fromAgent is a turn handling a mailbox message of the given type.
func fromAgent(from string, typ envelope.Type) (*agent.Turn, meta.Meta) {
	mt := meta.Meta{MessageID: "m-in", From: from, To: "researcher", Type: typ, TTL: 2, Trace: []string{from}}
	if typ == envelope.TypeTask {
		mt.Task = &envelope.Task{ID: "task_in", State: envelope.StateAccepted}
	}
	return agent.NewTurn(bus.InboundMessage{Channel: mailbox.ChannelName, ChatID: from, SenderID: from,
		Metadata: meta.With(nil, mt)}), mt
}

func TestNewToolsInOrder(t *testing.T) {
	set, err := agentloop.NewTools(tools.Loop(tools.Caller{Mailbox: newFake()})...)
	require.NoError(t, err)
	assert.Equal(t, []string{"list_agents", "delegate_task", "send_message", "reply", "read_artifact",
		"reserve_files", "release_files", "file_reservations", "answer_escalation"}, set.Names())
	for _, s := range set.Specs() {
		assert.NotEmpty(t, s.Description, s.Name)
		assert.Equal(t, "object", s.Parameters["type"], s.Name)
	}
}

func TestListAgents(t *testing.T) {
	out, err := run(t, tool(t, newFake(), "list_agents"), fromUser(), "")
	require.NoError(t, err)
	assert.JSONEq(t, `[
		{"id":"coder","description":"coder agent","capabilities":["sorting","counting"],"status":"idle","free_slots":3},
		{"id":"helper","description":"helper agent","capabilities":["counting"],"status":"busy","free_slots":2},
		{"id":"researcher","description":"researcher agent","capabilities":["research"],"status":"idle","free_slots":3,"you":true}
	]`, out)

	fake := newFake()
	fake.agents = append(fake.agents, view.Agent{Card: envelope.Card{AgentID: "bare"}, Effective: envelope.StatusIdle})
	out, err = run(t, tool(t, fake, "list_agents"), fromUser(), "{}")
	require.NoError(t, err)
	assert.Contains(t, out, `{"id":"bare","capabilities":[],"status":"idle","free_slots":0}`)

	fake.agentsErr = errors.New("registry torn")
	_, err = run(t, tool(t, fake, "list_agents"), fromUser(), "")
	assert.EqualError(t, err, "read the agent registry: registry torn")
}

func TestSendMessage(t *testing.T) {
	fake := newFake()
	out, err := run(t, tool(t, fake, "send_message"), fromUser(), `{"to":"coder","text":"hello"}`)
	require.NoError(t, err)
	assert.Equal(t, "sent message msg-1 to coder", out)
	assert.Equal(t, route.Request{To: "coder", Text: "hello"}, fake.posts()[0])

	turn, mt := fromAgent("coder", envelope.TypeMessage)
	_, err = run(t, tool(t, fake, "send_message"), turn, `{"to":"coder","text":"and you?"}`)
	require.NoError(t, err)
	assert.Equal(t, &mt, fake.posts()[1].Parent, "sent to the sender it is a reply in the thread")

	_, err = run(t, tool(t, fake, "send_message"), fromUser(), `{"to":"nobody","text":"hi"}`)
	assert.ErrorContains(t, err, `unknown agent "nobody"`)
	_, err = run(t, tool(t, fake, "send_message"), fromUser(), `{"to":"coder","text":""}`)
	assert.EqualError(t, err, "text is empty")
	_, err = run(t, tool(t, fake, "send_message"), fromUser(), `[]`)
	assert.ErrorContains(t, err, "arguments of send_message")
	fake.postErr = fmt.Errorf("send to %q: %w", "coder", route.ErrTTLExhausted)
	_, err = run(t, tool(t, fake, "send_message"), fromUser(), `{"to":"coder","text":"hi"}`)
	assert.ErrorIs(t, err, route.ErrTTLExhausted)
}

func TestReplyToATask(t *testing.T) {
	for _, tt := range []struct {
		args     string
		want     finish
		out      string
		answered bool
	}{
		{`{"text":"1 3 5 9"}`, finish{"task_in", envelope.StateCompleted, "1 3 5 9", ""}, "task task_in from planner is completed", true},
		{`{"text":"cannot parse","state":"failed"}`, finish{"task_in", envelope.StateFailed, "", "cannot parse"}, "task task_in from planner is failed", true},
		{`{"text":"half way","state":"working"}`, finish{"task_in", envelope.StateWorking, "half way", ""}, "told planner that task task_in is working", false},
	} {
		t.Run(tt.args, func(t *testing.T) {
			fake := newFake()
			turn, _ := fromAgent("planner", envelope.TypeTask)
			out, err := run(t, tool(t, fake, "reply"), turn, tt.args)
			require.NoError(t, err)
			assert.Equal(t, tt.out, out)
			assert.Equal(t, []finish{tt.want}, fake.finished)
			assert.Equal(t, tt.answered, turn.Answered())
		})
	}
}

func TestReplyToAMessage(t *testing.T) {
	fake := newFake()
	turn, mt := fromAgent("planner", envelope.TypeMessage)
	out, err := run(t, tool(t, fake, "reply"), turn, `{"text":"yes"}`)
	require.NoError(t, err)
	assert.Equal(t, "replied to planner (message msg-1)", out)
	assert.Equal(t, route.Request{To: "planner", Text: "yes", Parent: &mt, ReplyTo: "m-in"}, fake.posts()[0])
	assert.True(t, turn.Answered())

	turn, _ = fromAgent("planner", envelope.TypeMessage)
	_, err = run(t, tool(t, fake, "reply"), turn, `{"message_id":"m-in","text":"yes again"}`)
	require.NoError(t, err, "the message handled, named by its id")
	assert.True(t, turn.Answered())
}

func TestReplyErrors(t *testing.T) {
	task, _ := fromAgent("planner", envelope.TypeTask)
	msg, _ := fromAgent("planner", envelope.TypeMessage)
	routedMeta := meta.Meta{From: "coder", Type: envelope.TypeTaskUpdate, Callback: &envelope.Callback{Channel: "feishu"}}
	routed := agent.NewTurn(bus.InboundMessage{Channel: "feishu", Metadata: meta.With(nil, routedMeta)})
	for _, tt := range []struct {
		name  string
		turn  *agent.Turn
		args  string
		setup func(*fakeMailbox)
		want  string
	}{
		{"user message", fromUser(), `{"text":"x"}`, nil, "there is no agent to reply to: this message is not from the mailbox; your final answer goes to feishu"},
		{"another message", msg, `{"message_id":"m-other","text":"x"}`, nil, `message "m-other" is not the one you are handling now`},
		{"empty text", msg, `{"text":" "}`, nil, "text is empty: write the answer"},
		{"routed update", routed, `{"text":"x"}`, nil, "there is no agent to reply to"},
		{"state on a message", msg, `{"text":"x","state":"completed"}`, nil, "state is for tasks; this is a message from planner"},
		{"bad state", task, `{"text":"x","state":"done"}`, nil, `state "done": want completed, failed or working`},
		{"bad json", task, `{`, nil, "arguments of reply"},
		{"task over", task, `{"text":"x"}`, func(f *fakeMailbox) {
			f.finishErr = fmt.Errorf("finish task task_in: %w", mailbox.ErrTaskNotActive)
		}, "task not active"},
		{"send fails", msg, `{"text":"x"}`, func(f *fakeMailbox) { f.postErr = route.ErrHopLimit }, "thread hop limit reached"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake()
			if tt.setup != nil {
				tt.setup(fake)
			}
			_, err := run(t, tool(t, fake, "reply"), tt.turn, tt.args)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.False(t, tt.turn.Answered())
		})
	}
}

// A wait in seconds is bounded by a year: past it the deadline would
// overflow (1e300 seconds wrapped to a deadline in 1734).
func TestReplyWithinIsBounded(t *testing.T) {
	fake := newFake()
	_, err := run(t, tool(t, fake, "send_message"), fromUser(), `{"to":"coder","text":"hi","expects_reply":true,"reply_within_seconds":1e300}`)
	assert.EqualError(t, err, "reply_within_seconds is 1e+300: at most 31536000 (a year)")
	_, err = run(t, tool(t, fake, "send_message"), fromUser(), `{"to":"coder","text":"hi","expects_reply":true,"reply_within_seconds":-5}`)
	assert.EqualError(t, err, "reply_within_seconds must be positive")
	assert.Empty(t, fake.posts())

	_, err = run(t, tool(t, fake, "send_message"), fromUser(), `{"to":"coder","text":"hi","expects_reply":true,"reply_within_seconds":31536000}`)
	require.NoError(t, err)
	assert.Equal(t, clock.Add(tools.MaxWait), fake.posts()[0].ReplyBy, "a year is allowed")
}
