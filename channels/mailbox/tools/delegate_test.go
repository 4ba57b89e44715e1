package tools_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

func TestDelegateToAnAgentAttachesTheCallback(t *testing.T) {
	fake := newFake()
	turn := fromUser()
	out, err := run(t, tool(t, fake, "delegate_task"), turn, `{"to":"coder","task":"sort 5 3 9 1","deadline_seconds":90}`)
	require.NoError(t, err)
	assert.Equal(t, "delegated task task_1 to coder; its updates will come back to this conversation", out)
	require.Len(t, fake.posts(), 1)
	assert.Equal(t, route.Request{To: "coder", Type: envelope.TypeTask, Text: "sort 5 3 9 1",
		Deadline: clock.Add(90 * time.Second),
		Callback: &envelope.Callback{Channel: "feishu", ChatID: "u1", SessionID: "feishu:u1"}}, fake.posts()[0])
	assert.False(t, turn.Answered())
}

func TestDelegateUsesTheSessionOverride(t *testing.T) {
	fake := newFake()
	turn := agent.NewTurn(bus.InboundMessage{Channel: "feishu", ChatID: "u1", SessionKeyOverride: "feishu:thread-9"})
	_, err := run(t, tool(t, fake, "delegate_task"), turn, `{"to":"coder","task":"sort 1"}`)
	require.NoError(t, err)
	assert.Equal(t, &envelope.Callback{Channel: "feishu", ChatID: "u1", SessionID: "feishu:thread-9"}, fake.posts()[0].Callback)
}

func TestDelegateByCapability(t *testing.T) {
	fake := newFake()
	out, err := run(t, tool(t, fake, "delegate_task"), fromUser(), `{"capability":"counting","task":"count words in a b"}`)
	require.NoError(t, err)
	assert.Equal(t, "delegated task task_1 to coder; its updates will come back to this conversation", out,
		"coder has more free slots than helper")
}

func TestDelegateWhileHandlingATaskInheritsIt(t *testing.T) {
	fake := newFake()
	turn, mt := fromAgent("planner", envelope.TypeTask)
	_, err := run(t, tool(t, fake, "delegate_task"), turn, `{"to":"coder","task":"sort 1"}`)
	require.NoError(t, err)
	req := fake.posts()[0]
	require.NotNil(t, req.Parent)
	assert.Equal(t, mt, *req.Parent)
	assert.Equal(t, &envelope.Callback{Channel: "mailbox", ChatID: "planner", SessionID: "mailbox:planner"}, req.Callback)
}

func TestDelegateFromARoutedUpdateStartsAfresh(t *testing.T) {
	fake := newFake()
	mt := meta.Meta{MessageID: "m", From: "coder", Type: envelope.TypeTaskUpdate,
		Task: &envelope.Task{ID: "t", State: envelope.StateCompleted}, Callback: &envelope.Callback{Channel: "feishu", ChatID: "u1"}}
	turn := agent.NewTurn(bus.InboundMessage{Channel: "feishu", ChatID: "u1", Metadata: meta.With(nil, mt)})
	_, err := run(t, tool(t, fake, "delegate_task"), turn, `{"to":"coder","task":"sort 2 1"}`)
	require.NoError(t, err)
	assert.Nil(t, fake.posts()[0].Parent)
	assert.Nil(t, fake.posts()[0].Tree, "a result routed to the user's chat: a new task tree")

	// A result routed into the conversation about a task this agent works
	// on: the new task joins that task's tree.
	mt.Tree = &meta.Tree{Task: "task_in", Path: []string{"planner>researcher:0123"}}
	turn = agent.NewTurn(bus.InboundMessage{Channel: "mailbox", ChatID: "planner", Metadata: meta.With(nil, mt)})
	_, err = run(t, tool(t, fake, "delegate_task"), turn, `{"to":"coder","task":"sort 3 1"}`)
	require.NoError(t, err)
	assert.Nil(t, fake.posts()[1].Parent)
	assert.Equal(t, mt.Tree, fake.posts()[1].Tree)
}

func TestDelegateToAnOfflineAgentSaysSo(t *testing.T) {
	out, err := run(t, tool(t, newFake(), "delegate_task"), fromUser(), `{"to":"sleeper","task":"sort 1"}`)
	require.NoError(t, err)
	assert.Contains(t, out, "delegated task task_1 to sleeper")
	assert.Contains(t, out, "sleeper is offline now")
}

func TestDelegateErrorsAreReadable(t *testing.T) {
	for _, tt := range []struct {
		name, args string
		setup      func(*fakeMailbox)
		want       string
		is         error
	}{
		{"unknown agent", `{"to":"coderr","task":"sort 1"}`, nil,
			`unknown agent "coderr" (known agents: [coder helper sleeper]; call list_agents)`, nil},
		{"itself", `{"to":"researcher","task":"sort 1"}`, nil, `"researcher" is this agent itself; do the work here instead`, nil},
		{"bad id", `{"to":"../x","task":"sort 1"}`, nil, "invalid agent id", envelope.ErrBadAgentID},
		{"no capability", `{"capability":"painting","task":"paint"}`, nil,
			`no online agent offers the capability "painting" (call list_agents to see who offers what)`, nil},
		{"both", `{"to":"coder","capability":"sorting","task":"sort 1"}`, nil, "give either to or capability, not both", nil},
		{"neither", `{"task":"sort 1"}`, nil, "give the agent id (to) or a capability", nil},
		{"no task", `{"to":"coder","task":"  "}`, nil, "task is empty", nil},
		{"bad deadline", `{"to":"coder","task":"x","deadline_seconds":-1}`, nil, "deadline_seconds must be positive", nil},
		{"deadline past a year", `{"to":"coder","task":"x","deadline_seconds":1e300}`, nil,
			"deadline_seconds is 1e+300: at most 31536000 (a year)", nil},
		{"bad json", `{"to":`, nil, "arguments of delegate_task are not the JSON object", nil},
		{"loop refused", `{"to":"coder","task":"sort 1"}`, func(f *fakeMailbox) {
			f.postErr = fmt.Errorf("send to %q (trace [coder researcher]): %w", "coder", route.ErrLoop)
		}, "circular route: target already in trace", route.ErrLoop},
		{"registry down", `{"to":"coder","task":"sort 1"}`, func(f *fakeMailbox) { f.agentsErr = errors.New("gone") },
			"read the agent registry: gone", nil},
		{"registry down by capability", `{"capability":"sorting","task":"sort 1"}`, func(f *fakeMailbox) { f.agentsErr = errors.New("gone") },
			"gone", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFake()
			if tt.setup != nil {
				tt.setup(fake)
			}
			_, err := run(t, tool(t, fake, "delegate_task"), fromUser(), tt.args)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			if tt.is != nil {
				assert.ErrorIs(t, err, tt.is)
			}
			assert.Empty(t, fake.posts())
		})
	}
}
