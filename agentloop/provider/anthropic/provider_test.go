package anthropic_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop/provider/anthropic"
)

// server is a fake Messages endpoint that records each request's headers
// and body and answers with answer.
type server struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
	bodies  []map[string]any
}

func newServer(t *testing.T, status int, answer any) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		data, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(data, &body)
		s.mu.Lock()
		s.headers, s.bodies = append(s.headers, r.Header.Clone()), append(s.bodies, body)
		s.mu.Unlock()
		if r.URL.Path != "/v1/messages" || r.Method != http.MethodPost {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusTeapot)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(answer)
	}))
	t.Cleanup(s.Close)
	return s
}

func message(stop string, content ...any) map[string]any {
	return map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
		"content": content, "stop_reason": stop, "usage": map[string]any{"input_tokens": 7, "output_tokens": 3, "cache_read_input_tokens": 2, "cache_creation_input_tokens": 1}}
}

func TestChatMapsToolCallsBothWays(t *testing.T) {
	t.Parallel()
	s := newServer(t, 200, message("tool_use",
		map[string]any{"type": "text", "text": "Let me look."},
		map[string]any{"type": "tool_use", "id": "toolu_2", "name": "list_agents", "input": map[string]any{"capability": "sorting"}}))
	p, err := anthropic.New(anthropic.Config{APIKey: "sk-ant-test", APIBase: s.URL, Model: "claude-test",
		ExtraHeaders: map[string]string{"X-Team": "blue"}})
	require.NoError(t, err)

	resp, err := p.Chat(context.Background(), agent.Request{MaxTokens: 100, Temperature: 0.2,
		Messages: []agent.Message{
			{Role: agent.RoleSystem, Content: "You are coder."},
			{Role: agent.RoleUser, Content: "who sorts?"},
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{
				{ID: "toolu_1", Name: "list_agents", Arguments: `{}`}, {ID: "toolu_x", Name: "list_agents", Arguments: ``}}},
			{Role: agent.RoleTool, ToolCallID: "toolu_1", Content: "[]"},
			{Role: agent.RoleTool, ToolCallID: "toolu_x", Content: "error: boom"},
			{Role: agent.RoleUser, Content: "and now?"},
		},
		Tools: []agent.ToolSpec{{Name: "list_agents", Description: "List agents.", Parameters: map[string]any{
			"type": "object", "properties": map[string]any{"capability": map[string]any{"type": "string"}},
			"required": []any{"capability"}, "additionalProperties": false}}},
	})
	require.NoError(t, err)
	assert.Equal(t, &agent.Response{Content: "Let me look.", FinishReason: "tool_calls",
		ToolCalls: []agent.ToolCall{{ID: "toolu_2", Name: "list_agents", Arguments: `{"capability":"sorting"}`}},
		Model:     "claude-test", Usage: agent.Usage{InputTokens: 10, OutputTokens: 3, CachedTokens: 2, CacheWriteTokens: 1}}, resp)

	require.Len(t, s.headers, 1)
	h := s.headers[0]
	assert.Equal(t, "sk-ant-test", h.Get("X-Api-Key"))
	assert.Empty(t, h.Get("Authorization"), "the key goes in x-api-key only")
	assert.Equal(t, "blue", h.Get("X-Team"))
	assert.NotEmpty(t, h.Get("Anthropic-Version"))

	body := s.bodies[0]
	assert.Equal(t, "claude-test", body["model"])
	assert.EqualValues(t, 100, body["max_tokens"])
	assert.Equal(t, []any{map[string]any{"type": "text", "text": "You are coder.",
		"cache_control": map[string]any{"type": "ephemeral"}}}, body["system"], "the stable prefix ends in a cache breakpoint")
	want := `[
	 {"role":"user","content":[{"type":"text","text":"who sorts?"}]},
	 {"role":"assistant","content":[
	   {"type":"tool_use","id":"toolu_1","name":"list_agents","input":{}},
	   {"type":"tool_use","id":"toolu_x","name":"list_agents","input":{}}]},
	 {"role":"user","content":[
	   {"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"[]"}],"is_error":false},
	   {"type":"tool_result","tool_use_id":"toolu_x","content":[{"type":"text","text":"error: boom"}],"is_error":true},
	   {"type":"text","text":"and now?","cache_control":{"type":"ephemeral"}}]}]`
	got, _ := json.Marshal(body["messages"])
	assert.JSONEq(t, want, string(got))
	tools, _ := json.Marshal(body["tools"])
	assert.JSONEq(t, `[{"name":"list_agents","description":"List agents.","input_schema":{"type":"object",
		"properties":{"capability":{"type":"string"}},"required":["capability"],"additionalProperties":false}}]`, string(tools))
}

// Without a system prompt the first cache breakpoint goes on the last
// tool (tools come first in what the API reads); the second on the last
// block of the conversation, here a tool result.
func TestCacheBreakpointsWithoutASystemPrompt(t *testing.T) {
	t.Parallel()
	s := newServer(t, 200, message("end_turn", map[string]any{"type": "text", "text": "ok"}))
	p, err := anthropic.New(anthropic.Config{APIKey: "k", APIBase: s.URL, Model: "claude-test"})
	require.NoError(t, err)
	spec := func(name string) agent.ToolSpec {
		return agent.ToolSpec{Name: name, Parameters: map[string]any{"type": "object"}}
	}
	_, err = p.Chat(context.Background(), agent.Request{Tools: []agent.ToolSpec{spec("a"), spec("b")},
		Messages: []agent.Message{{Role: agent.RoleUser, Content: "go"},
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "t1", Name: "a"}}},
			{Role: agent.RoleTool, ToolCallID: "t1", Content: "done"}}})
	require.NoError(t, err)
	body := s.bodies[0]
	assert.Nil(t, body["system"])
	tools, _ := json.Marshal(body["tools"])
	assert.JSONEq(t, `[{"name":"a","input_schema":{"type":"object"}},
		{"name":"b","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}]`, string(tools))
	msgs, _ := json.Marshal(body["messages"])
	assert.JSONEq(t, `[{"role":"user","content":[{"type":"text","text":"go"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"a","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"done"}],
		  "is_error":false,"cache_control":{"type":"ephemeral"}}]}]`, string(msgs))
}

func TestChatText(t *testing.T) {
	t.Parallel()
	s := newServer(t, 200, message("end_turn", map[string]any{"type": "text", "text": "1 3 5 9"}))
	p, err := anthropic.New(anthropic.Config{APIKey: "k", APIBase: s.URL})
	require.NoError(t, err)
	resp, err := p.Chat(context.Background(), agent.Request{Model: "claude-from-request",
		Messages: []agent.Message{{Role: agent.RoleUser, Content: "sort 5 3 9 1"}}, Temperature: 3})
	require.NoError(t, err)
	assert.Equal(t, &agent.Response{Content: "1 3 5 9", FinishReason: "stop", Model: "claude-test",
		Usage: agent.Usage{InputTokens: 10, OutputTokens: 3, CachedTokens: 2, CacheWriteTokens: 1}}, resp)
	assert.Equal(t, "claude-from-request", s.bodies[0]["model"])
	assert.EqualValues(t, anthropic.DefaultMaxTokens, s.bodies[0]["max_tokens"], "the API needs a cap")
	assert.EqualValues(t, 1, s.bodies[0]["temperature"], "clamped to the API's range")
}

func TestServerRefusalIsAStatusError(t *testing.T) {
	t.Parallel()
	s := newServer(t, 529, map[string]any{"type": "error", "error": map[string]any{"type": "overloaded_error", "message": "Overloaded"}})
	p, err := anthropic.New(anthropic.Config{APIKey: "k", APIBase: s.URL, Model: "m"})
	require.NoError(t, err)
	_, err = p.Chat(context.Background(), agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "hi"}}})
	var se *anthropic.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 529, se.StatusCode)
	assert.Equal(t, "overloaded_error", se.Type)
	assert.EqualError(t, err, "anthropic provider: server answered 529: Overloaded")
	assert.Len(t, s.bodies, 1, "no retries when MaxRetries is 0")
}

func TestBadConfigAndRequests(t *testing.T) {
	t.Parallel()
	_, err := anthropic.New(anthropic.Config{APIBase: "api.anthropic.com", Timeout: -1, MaxRetries: -1})
	assert.EqualError(t, err, "anthropic provider: timeout: want 0 or more, got -1ns\n"+
		"anthropic provider: maxRetries: want 0 or more, got -1\n"+
		`anthropic provider: apiBase "api.anthropic.com": want an http or https URL such as https://api.anthropic.com`)

	s := newServer(t, 200, message("end_turn"))
	p, err := anthropic.New(anthropic.Config{APIBase: s.URL})
	require.NoError(t, err)
	_, err = p.Chat(context.Background(), agent.Request{})
	assert.ErrorContains(t, err, "no model")
	_, err = p.Chat(context.Background(), agent.Request{Model: "m", Messages: []agent.Message{{Role: "narrator"}}})
	assert.EqualError(t, err, `anthropic provider: message 0: unknown role "narrator"`)
	s.Close()
	_, err = p.Chat(context.Background(), agent.Request{Model: "m", Messages: []agent.Message{{Role: agent.RoleUser, Content: "x"}}})
	assert.ErrorContains(t, err, "anthropic provider: request failed")
}
