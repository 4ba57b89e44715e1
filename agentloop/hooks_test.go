package agentloop_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
)

// hookLog records what a Hook is told, prefixed with its name.
type hookLog struct {
	name   string
	mu     *sync.Mutex
	events *[]string
	refuse error
}

func (h hookLog) add(format string, args ...any) {
	h.mu.Lock()
	*h.events = append(*h.events, h.name+" "+fmt.Sprintf(format, args...))
	h.mu.Unlock()
}

type ctxKey struct{}

func (h hookLog) Turn(ctx context.Context, t *agent.Turn) (context.Context, func(error, agent.Usage)) {
	h.add("turn %s", t.Inbound.Content)
	return context.WithValue(ctx, ctxKey{}, h.name), func(err error, u agent.Usage) {
		h.add("turn end err=%v in=%d out=%d", err, u.InputTokens, u.OutputTokens)
	}
}

func (h hookLog) Chat(ctx context.Context, t *agent.Turn, req *agent.Request) (context.Context, func(*agent.Response, error), error) {
	h.add("chat ctx=%v", ctx.Value(ctxKey{}))
	return ctx, func(resp *agent.Response, err error) {
		if resp != nil {
			h.add("chat end %d+%d", resp.Usage.InputTokens, resp.Usage.OutputTokens)
		} else {
			h.add("chat end err=%v", err)
		}
	}, h.refuse
}

func (h hookLog) Tool(ctx context.Context, t *agent.Turn, c agent.ToolCall) (context.Context, func(string, bool)) {
	h.add("tool %s", c.Name)
	return ctx, func(res string, failed bool) { h.add("tool end %s failed=%v", res, failed) }
}

// shout is a tool that upper-cases nothing and fails on "bad".
type shout struct{}

func (shout) Name() string { return "shout" }
func (shout) Spec() agent.ToolSpec {
	return agent.ToolSpec{Name: "shout", Parameters: map[string]any{"type": "object"}}
}
func (shout) Execute(_ context.Context, c agent.Call) (string, error) {
	if c.Arguments == `{"bad":true}` {
		return "", fmt.Errorf("refused")
	}
	return "HEY", nil
}

// A provider that calls shout once, then answers; each call costs 10+2.
func shoutThenAnswer(args string) providerFunc {
	return func(_ context.Context, req agent.Request) (*agent.Response, error) {
		u := agent.Usage{InputTokens: 10, OutputTokens: 2}
		if req.Messages[len(req.Messages)-1].Role == agent.RoleTool {
			return &agent.Response{Content: "done", Usage: u}, nil
		}
		return &agent.Response{Usage: u, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "shout", Arguments: args}}}, nil
	}
}

func TestHooksSeeTurnChatAndToolInOrder(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var events []string
	tools, err := agentloop.NewTools(shout{})
	require.NoError(t, err)
	s := start(t, agentloop.Config{Provider: shoutThenAnswer(`{"bad":true}`), Tools: tools, Hooks: []agent.Hook{
		hookLog{name: "a", mu: &mu, events: &events}, hookLog{name: "b", mu: &mu, events: &events}}})
	s.send(t, user("c", "hi"))
	assert.Equal(t, "done", s.recv(t).Content)
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{
		"a turn hi", "b turn hi",
		"a chat ctx=b", "b chat ctx=b", "b chat end 10+2", "a chat end 10+2",
		"a tool shout", "b tool shout", "b tool end error: refused failed=true", "a tool end error: refused failed=true",
		"a chat ctx=b", "b chat ctx=b", "b chat end 10+2", "a chat end 10+2",
		"b turn end err=<nil> in=20 out=4", "a turn end err=<nil> in=20 out=4",
	}, events)
}

func TestHookRefusalFailsTheTurnWithoutAskingTheProvider(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var events []string
	rec := &recorder{next: echo()}
	refusal := &agent.TaskFailure{Reason: "budget exhausted"}
	s := start(t, agentloop.Config{Provider: rec, Hooks: []agent.Hook{
		hookLog{name: "a", mu: &mu, events: &events}, hookLog{name: "b", mu: &mu, events: &events, refuse: refusal}}})
	s.send(t, user("c", "hi"))
	assert.Equal(t, agentloop.RefusalPrefix+"budget exhausted", s.recv(t).Content, "the user hears why")
	assert.Empty(t, rec.requests(), "the provider is not asked")
	mu.Lock()
	defer mu.Unlock()
	assert.Equal(t, []string{"a turn hi", "b turn hi", "a chat ctx=b", "b chat ctx=b",
		"b chat end err=budget exhausted", "a chat end err=budget exhausted",
		"b turn end err=budget exhausted in=0 out=0", "a turn end err=budget exhausted in=0 out=0"}, events)
}

func TestNopHookChangesNothing(t *testing.T) {
	t.Parallel()
	s := start(t, agentloop.Config{Provider: echo(), Hooks: []agent.Hook{agent.NopHook{}}})
	s.send(t, user("c", "hi"))
	assert.Equal(t, "echo: hi", s.recv(t).Content)
}

func TestUsageAdds(t *testing.T) {
	t.Parallel()
	u := agent.Usage{InputTokens: 3, OutputTokens: 4}.Add(agent.Usage{InputTokens: 1, OutputTokens: 2})
	assert.Equal(t, agent.Usage{InputTokens: 4, OutputTokens: 6}, u)
	assert.EqualValues(t, 10, u.Total())
}

// A provider's answer that reports negative usage is refused: counted,
// it would free budget the task spent. The turn fails and the hooks see
// the error, not the usage.
func TestNegativeUsageIsRefused(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var events []string
	negative := providerFunc(func(context.Context, agent.Request) (*agent.Response, error) {
		return &agent.Response{Content: "free tokens", Usage: agent.Usage{InputTokens: 10, OutputTokens: -1_000_000}}, nil
	})
	s := start(t, agentloop.Config{Provider: negative, Hooks: []agent.Hook{hookLog{name: "a", mu: &mu, events: &events}}})
	s.send(t, user("c", "hi"))
	out := s.recv(t)
	assert.NotContains(t, out.Content, "free tokens", "the answer is not passed on")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, events, 4)
	assert.Contains(t, events[2], "chat end err=provider reported negative token usage")
	assert.Contains(t, events[3], "in=0 out=0", "nothing is charged")
}
