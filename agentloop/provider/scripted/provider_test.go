package scripted_test

import (
	"context"
	"errors"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
)

func errorsIsUnknown(err error) bool { return errors.Is(err, scripted.ErrUnknownWork) }

var mailboxTools = []agent.ToolSpec{{Name: "list_agents"}, {Name: "delegate_task"}}

func ask(text string, tools ...agent.ToolSpec) agent.Request {
	return agent.Request{Tools: tools, Messages: []agent.Message{
		{Role: agent.RoleSystem, Content: "sys"},
		{Role: agent.RoleUser, Content: text},
	}}
}

func chat(t *testing.T, req agent.Request) *agent.Response {
	t.Helper()
	resp, err := scripted.New().Chat(context.Background(), req)
	require.NoError(t, err)
	return resp
}

func TestChatAnswers(t *testing.T) {
	for _, tt := range []struct {
		name, text, want string
	}{
		{"work for the user", "sort b a", "a b"},
		{"work that fails", "compute 1/0", "I could not do that: division by zero"},
		{"anything else", "hello there", scripted.HelpText},
		{"delegation without mailbox", "ask coder to sort 1 2", "I cannot reach other agents here: the mailbox is not enabled."},
		{"listing without mailbox", "who is online?", "I cannot see other agents here: the mailbox is not enabled."},
		{"task from an agent", "[mailbox task from researcher] sort 5 3 9 1", "1 3 5 9"},
		{"message from an agent", "[mailbox message from researcher] count words in a b", "2"},
		{"chat from an agent", "[mailbox message from researcher] hi!", scripted.HelpText},
		{"bad work in a message", "[mailbox message from researcher] sort", "I could not do that: nothing to sort"},
		{"completed", "[mailbox task_update from coder: task t1 completed] 1 3 5 9", "coder finished: 1 3 5 9"},
		{"completed silently", "[mailbox task_update from coder: task t1 completed]", "coder finished the task."},
		{"accepted", "[mailbox task_update from coder: task t1 accepted]", "coder accepted the task and is working on it."},
		{"working", "[mailbox task_update from coder: task t1 working] half way", "coder is working on it: half way"},
		{"rejected", "[mailbox task_update from coder: task t1 rejected] reason: declined: no capability for sort",
			"coder could not do it: declined: no capability for sort"},
		{"failed", "[mailbox task_update from coder: task t1 failed] reason: deadline passed", "coder could not do it: deadline passed"},
		{"failed without reason", "[mailbox task_update from coder: task t1 failed]", "coder could not do it: no reason given"},
		{"canceled", "[mailbox task_update from coder: task t1 canceled]", "coder's task was canceled."},
		{"waiting", "[mailbox task_update from coder: task t1 pending] reason: coder did not accept it within 30s\n" +
			"it waits in coder's inbox until coder takes it up",
			"task t1: coder did not accept it within 30s; it waits in coder's inbox until coder takes it up"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := chat(t, ask(tt.text))
			assert.Empty(t, resp.ToolCalls)
			assert.Equal(t, tt.want, resp.Content)
			assert.Equal(t, "stop", resp.FinishReason)
		})
	}
}

func TestChatTaskItCannotDoIsAnError(t *testing.T) {
	_, err := scripted.New().Chat(context.Background(), ask("[mailbox task from researcher] paint the fence"))
	assert.ErrorContains(t, err, "I do not know how to paint")
	_, err = scripted.New().Chat(context.Background(), ask("[mailbox task from researcher] compute 1/0"))
	assert.EqualError(t, err, "division by zero")
	var tf *agent.TaskFailure
	assert.ErrorAs(t, err, &tf, "the task fails with the reason, not as a provider failure")
}

func TestChatCallsTools(t *testing.T) {
	for _, tt := range []struct {
		text, tool, args string
	}{
		{"ask coder to sort 5 3 9 1", "delegate_task", `{"task":"sort 5 3 9 1","to":"coder"}`},
		{"Please ask coder, to count words in a b c.", "delegate_task", `{"task":"count words in a b c","to":"coder"}`},
		{"ask someone who can sort to sort 5 3", "delegate_task", `{"capability":"sorting","task":"sort 5 3"}`},
		{"ask anyone who can arithmetic to compute 1+1", "delegate_task", `{"capability":"arithmetic","task":"compute 1+1"}`},
		{"ask coder to sort 5 3 9 1 within 30 seconds", "delegate_task", `{"task":"sort 5 3 9 1","to":"coder","deadline_seconds":30}`},
		{"ask coder to sort 2 1, within 1.5 min.", "delegate_task", `{"task":"sort 2 1","to":"coder","deadline_seconds":90}`},
		{"ask someone who can count to count words in a b within 2h", "delegate_task",
			`{"capability":"counting","task":"count words in a b","deadline_seconds":7200}`},
		{"ask coder to sort within", "delegate_task", `{"task":"sort within","to":"coder"}`},
		{"list agents", "list_agents", `{}`},
		{"Who is online?", "list_agents", `{}`},
		{"please list the agents", "list_agents", `{}`},
	} {
		t.Run(tt.text, func(t *testing.T) {
			resp := chat(t, ask(tt.text, mailboxTools...))
			assert.Empty(t, resp.Content)
			assert.Equal(t, "tool_calls", resp.FinishReason)
			require.Len(t, resp.ToolCalls, 1)
			assert.Equal(t, "call_1", resp.ToolCalls[0].ID)
			assert.Equal(t, tt.tool, resp.ToolCalls[0].Name)
			assert.JSONEq(t, tt.args, resp.ToolCalls[0].Arguments)
		})
	}
}

func TestChatToolCallIDsAreUniqueInTheConversation(t *testing.T) {
	req := ask("ask coder to sort 1", mailboxTools...)
	earlier := []agent.Message{
		{Role: agent.RoleUser, Content: "list agents"},
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "call_1", Name: "list_agents"}}},
		{Role: agent.RoleTool, ToolCallID: "call_1", Content: "[]"},
		{Role: agent.RoleAssistant, Content: "No other agents are online."},
	}
	req.Messages = append(req.Messages[:1], append(earlier, req.Messages[1:]...)...)
	assert.Equal(t, "call_2", chat(t, req).ToolCalls[0].ID)
}

// afterTool returns the request that follows a tool call with its result.
func afterTool(call agent.ToolCall, result string) agent.Request {
	req := ask("whatever", mailboxTools...)
	req.Messages = append(req.Messages,
		agent.Message{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{call}},
		agent.Message{Role: agent.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: result})
	return req
}

func TestChatFollowsUpToolResults(t *testing.T) {
	delegate := agent.ToolCall{ID: "call_1", Name: "delegate_task", Arguments: `{"to":"coder","task":"sort 5 3 9 1"}`}
	list := agent.ToolCall{ID: "call_1", Name: "list_agents", Arguments: `{}`}
	for _, tt := range []struct {
		name   string
		call   agent.ToolCall
		result string
		want   string
	}{
		{"delegated", delegate, "delegated task task_01 to coder; its updates will come back to this conversation",
			"I asked coder to sort 5 3 9 1 (task task_01). I'll tell you when it's done."},
		{"delegation failed", delegate, `error: unknown agent "coderr" (known agents: [coder])`,
			`I could not delegate that: unknown agent "coderr" (known agents: [coder])`},
		{"odd delegation result", delegate, "something else", "something else"},
		{"listed", list, `[{"id":"me","capabilities":[],"status":"idle","free_slots":3,"you":true},` +
			`{"id":"coder","capabilities":["sorting","counting"],"status":"busy","free_slots":1},` +
			`{"id":"quiet","capabilities":[],"status":"idle","free_slots":2}]`,
			"Online agents: coder (sorting, counting; busy, 1 free slots); quiet (no capabilities listed; idle, 2 free slots)."},
		{"nobody else", list, `[{"id":"me","you":true}]`, "No other agents are online."},
		{"listing failed", list, "error: registry unreadable", "I could not list the agents: registry unreadable"},
		{"unreadable listing", list, "not json", "not json"},
		{"other tool", agent.ToolCall{ID: "x", Name: "clock"}, "12:00", "12:00"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := chat(t, afterTool(tt.call, tt.result))
			assert.Empty(t, resp.ToolCalls)
			assert.Equal(t, tt.want, resp.Content)
		})
	}
}

func TestChatEdges(t *testing.T) {
	assert.Equal(t, scripted.HelpText, chat(t, agent.Request{}).Content)
	req := ask("x")
	req.Messages = append(req.Messages, agent.Message{Role: agent.RoleAssistant, Content: "y"})
	assert.Equal(t, scripted.HelpText, chat(t, req).Content)
	orphan := agent.Request{Messages: []agent.Message{{Role: agent.RoleTool, Content: "r"}}}
	assert.Equal(t, scripted.HelpText, chat(t, orphan).Content)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := scripted.New().Chat(ctx, ask("sort 1"))
	assert.ErrorIs(t, err, context.Canceled)
}

func TestJudgeTask(t *testing.T) {
	for _, tt := range []struct {
		text   string
		caps   []string
		accept bool
		reason string
	}{
		{"sort 5 3", []string{"sorting"}, true, ""},
		{"count words in a", []string{"sorting", "counting"}, true, ""},
		{"compute 1+1", []string{"arithmetic"}, true, ""},
		{"calculate 1+1", []string{"arithmetic"}, true, ""},
		{"sort 5 3", []string{"counting"}, false, "no capability for sort"},
		{"sort 5 3", nil, false, "no capability for sort"},
		{"paint the fence", []string{"sorting"}, false, "no capability for paint"},
		{"paint the fence", []string{"*"}, true, ""},
		{"", []string{"sorting"}, false, "no work given"},
	} {
		t.Run(tt.text, func(t *testing.T) {
			ok, why := scripted.New().JudgeTask(context.Background(),
				agent.TaskInfo{Text: tt.text, From: "researcher", Capabilities: tt.caps})
			assert.Equal(t, tt.accept, ok)
			assert.Equal(t, tt.reason, why)
		})
	}
}

func TestChatReportsDeterministicUsage(t *testing.T) {
	t.Parallel()
	req := agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "sort 5 3 9 1"}}}
	a, err := scripted.New().Chat(context.Background(), req)
	require.NoError(t, err)
	b, err := scripted.New().Chat(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, scripted.Model, a.Model)
	assert.Positive(t, a.Usage.InputTokens)
	assert.Positive(t, a.Usage.OutputTokens)
	assert.Equal(t, a.Usage, b.Usage, "the same request costs the same")
}
