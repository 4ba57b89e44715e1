package agentloop_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
)

// countTool counts its executions and can fail or panic.
type countTool struct {
	name     string
	mu       sync.Mutex
	n        int
	fail     error
	panics   bool
	lastCall agent.Call
}

func (c *countTool) Name() string { return c.name }
func (c *countTool) Spec() agent.ToolSpec {
	return agent.ToolSpec{Name: c.name, Description: "test tool", Parameters: map[string]any{"type": "object"}}
}
func (c *countTool) Execute(_ context.Context, call agent.Call) (string, error) {
	c.mu.Lock()
	c.n++
	c.lastCall = call
	n := c.n
	c.mu.Unlock()
	if c.panics {
		panic("tool bug")
	}
	if c.fail != nil {
		return "", c.fail
	}
	return fmt.Sprintf("%s ran %d times", c.name, n), nil
}

// specTool is a tool whose spec name can differ from its name.
type specTool struct{ name, spec string }

func (s specTool) Name() string         { return s.name }
func (s specTool) Spec() agent.ToolSpec { return agent.ToolSpec{Name: s.spec} }
func (s specTool) Execute(context.Context, agent.Call) (string, error) {
	return "", nil
}

func TestToolsRegistry(t *testing.T) {
	a, b := &countTool{name: "a"}, &countTool{name: "b"}
	tools, err := agentloop.NewTools(b, a)
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "a"}, tools.Names())
	assert.Equal(t, 2, tools.Len())
	specs := tools.Specs()
	require.Len(t, specs, 2)
	assert.Equal(t, "b", specs[0].Name)
	got, ok := tools.Get("a")
	assert.True(t, ok)
	assert.Same(t, a, got)
	_, ok = tools.Get("zzz")
	assert.False(t, ok)

	for _, tt := range []struct {
		name string
		add  []agent.Tool
		want string
	}{
		{"nil", []agent.Tool{nil}, "nil tool"},
		{"taken", []agent.Tool{&countTool{name: "a"}}, "already registered"},
		{"twice in one call", []agent.Tool{&countTool{name: "c"}, &countTool{name: "c"}}, "already registered"},
		{"bad name", []agent.Tool{&countTool{name: "has space"}}, "name must be"},
		{"spec differs", []agent.Tool{specTool{name: "x", spec: "y"}}, `its Spec is named "y"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tools.Add(tt.add...)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, 2, tools.Len(), "a failed Add adds nothing")
		})
	}

	var none *agentloop.Tools
	assert.Zero(t, none.Len())
	assert.Nil(t, none.Specs())
	assert.Nil(t, none.Names())
	_, ok = none.Get("a")
	assert.False(t, ok)
}

func TestCallDecode(t *testing.T) {
	var v struct{ X int }
	require.NoError(t, agent.Call{Name: "t"}.Decode(&v))
	require.NoError(t, agent.Call{Name: "t", Arguments: `{"X":3}`}.Decode(&v))
	assert.Equal(t, 3, v.X)
	err := agent.Call{Name: "t", Arguments: `{"X":`}.Decode(&v)
	assert.ErrorContains(t, err, "arguments of t")
	assert.Zero(t, agent.Call{}.Inbound())
	var turn *agent.Turn
	turn.MarkAnswered()
	assert.False(t, turn.Answered())
}

// toolThenAnswer calls each tool named in calls once, then answers with the
// tool results joined.
func toolThenAnswer(calls ...agent.ToolCall) providerFunc {
	return func(_ context.Context, req agent.Request) (*agent.Response, error) {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == agent.RoleUser {
			return &agent.Response{ToolCalls: calls}, nil
		}
		var results []string
		for _, m := range req.Messages {
			if m.Role == agent.RoleTool {
				results = append(results, m.ToolCallID+"="+m.Content)
			}
		}
		return &agent.Response{Content: fmt.Sprint(results)}, nil
	}
}

func TestLoopToolResultsAndErrors(t *testing.T) {
	ok := &countTool{name: "ok"}
	failing := &countTool{name: "failing", fail: errors.New("no such file")}
	panicking := &countTool{name: "panicking", panics: true}
	tools, err := agentloop.NewTools(ok, failing, panicking)
	require.NoError(t, err)
	p := toolThenAnswer(
		agent.ToolCall{ID: "1", Name: "ok", Arguments: "{}"},
		agent.ToolCall{ID: "2", Name: "failing"},
		agent.ToolCall{ID: "3", Name: "panicking"},
		agent.ToolCall{ID: "4", Name: "missing"},
		agent.ToolCall{Name: "ok"}, // no id: the loop gives it one
	)
	s := start(t, agentloop.Config{Provider: p, Tools: tools})
	in := user("c", "go")
	s.send(t, in)
	assert.Equal(t, "[1=ok ran 1 times 2=error: no such file 3=error: tool panicking failed unexpectedly: tool bug "+
		`4=error: unknown tool "missing" (available: [ok failing panicking]) call_0_4=ok ran 2 times]`, s.recv(t).Content)
	ok.mu.Lock()
	defer ok.mu.Unlock()
	require.NotNil(t, ok.lastCall.Turn)
	assert.Equal(t, "feishu:c", ok.lastCall.Turn.SessionKey)
	assert.Equal(t, in.Content, ok.lastCall.Inbound().Content)
}

func TestLoopCapsToolRounds(t *testing.T) {
	tool := &countTool{name: "again"}
	tools, err := agentloop.NewTools(tool)
	require.NoError(t, err)
	calls := 0
	p := providerFunc(func(context.Context, agent.Request) (*agent.Response, error) {
		calls++
		return &agent.Response{ToolCalls: []agent.ToolCall{{ID: fmt.Sprint(calls), Name: "again"}}}, nil
	})
	s := start(t, agentloop.Config{Provider: p, Tools: tools, MaxToolIterations: 3})
	s.send(t, user("c", "loop forever"))
	out := s.recv(t)
	assert.Contains(t, out.Content, "stopped after 3 rounds of tool calls")
	assert.Equal(t, 3, calls)
	assert.Equal(t, 3, tool.n)
}

// answeringTool marks the turn answered, as the mailbox reply tool does.
type answeringTool struct{}

func (answeringTool) Name() string { return "answer" }
func (answeringTool) Spec() agent.ToolSpec {
	return agent.ToolSpec{Name: "answer"}
}
func (answeringTool) Execute(_ context.Context, c agent.Call) (string, error) {
	c.Turn.MarkAnswered()
	return "answered", nil
}

func TestLoopDoesNotResendWhatAToolAnswered(t *testing.T) {
	tools, err := agentloop.NewTools(answeringTool{})
	require.NoError(t, err)
	p := providerFunc(func(_ context.Context, req agent.Request) (*agent.Response, error) {
		if lastUser(req) == "answer via tool" && req.Messages[len(req.Messages)-1].Role == agent.RoleUser {
			return &agent.Response{ToolCalls: []agent.ToolCall{{ID: "1", Name: "answer"}}}, nil
		}
		return &agent.Response{Content: "final " + lastUser(req)}, nil
	})
	s := start(t, agentloop.Config{Provider: p, Tools: tools})
	s.send(t, user("c", "answer via tool"))
	s.send(t, user("c", "next"))
	assert.Equal(t, "final next", s.recv(t).Content)
}
