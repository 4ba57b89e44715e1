package openai_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop/provider/openai"
	"github.com/switchboard-dev/switchboard/config"
)

// server is a fake chat completions endpoint: handle answers each request
// (n counts from 1) after the body was decoded.
type server struct {
	*httptest.Server
	requests atomic.Int32
}

func newServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, body map[string]any, n int)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(s.requests.Add(1))
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusTeapot)
			return
		}
		var body map[string]any
		data, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(data, &body); err != nil {
			http.Error(w, "bad json: "+err.Error(), http.StatusUnprocessableEntity)
			return
		}
		handle(w, r, body, n)
	}))
	t.Cleanup(s.Close)
	return s
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// completion is a chat completion answer with one choice.
func completion(message map[string]any, finish string) map[string]any {
	message["role"] = "assistant"
	return map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15,
			"prompt_tokens_details": map[string]any{"cached_tokens": 8}}}
}

func apiError(msg, typ, code string) map[string]any {
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": code, "param": nil}}
}

func newProvider(t *testing.T, s *server, cfg openai.Config) *openai.Provider {
	t.Helper()
	cfg.APIBase = s.URL + "/v1"
	if cfg.Model == "" {
		cfg.Model = "test-model"
	}
	p, err := openai.New(cfg)
	require.NoError(t, err)
	return p
}

func request(msgs ...agent.Message) agent.Request {
	return agent.Request{Messages: msgs, MaxTokens: 100, Temperature: 0.2}
}

func TestPlainReply(t *testing.T) {
	var got map[string]any
	var auth string
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, _ int) {
		got, auth = body, r.Header.Get("Authorization")
		writeJSON(w, 200, completion(map[string]any{"content": "hello there"}, "stop"))
	})
	p := newProvider(t, s, openai.Config{APIKey: "sk-test"})
	resp, err := p.Chat(context.Background(), request(
		agent.Message{Role: agent.RoleSystem, Content: "be brief"},
		agent.Message{Role: agent.RoleUser, Content: "hi", Name: "ou_123"},
		agent.Message{Role: agent.RoleUser, Content: "again", Name: "not a valid name!"},
	))
	require.NoError(t, err)
	assert.Equal(t, &agent.Response{Content: "hello there", FinishReason: "stop", Model: "m",
		Usage: agent.Usage{InputTokens: 12, OutputTokens: 3, CachedTokens: 8}}, resp)
	assert.Equal(t, "Bearer sk-test", auth)
	assert.Equal(t, "test-model", got["model"])
	assert.EqualValues(t, 100, got["max_completion_tokens"])
	assert.EqualValues(t, 0.2, got["temperature"])
	assert.Nil(t, got["tools"])
	assert.Equal(t, []any{
		map[string]any{"role": "system", "content": "be brief"},
		map[string]any{"role": "user", "content": "hi", "name": "ou_123"},
		map[string]any{"role": "user", "content": "again"},
	}, got["messages"])
}

func TestToolCallRoundTrip(t *testing.T) {
	var second map[string]any
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, body map[string]any, n int) {
		if n == 1 {
			writeJSON(w, 200, completion(map[string]any{"content": nil, "tool_calls": []any{map[string]any{
				"id": "call_abc", "type": "function",
				"function": map[string]any{"name": "delegate_task", "arguments": `{"to":"coder","task":"sort 3 1"}`},
			}}}, "tool_calls"))
			return
		}
		second = body
		writeJSON(w, 200, completion(map[string]any{"content": "asked coder"}, "stop"))
	})
	p := newProvider(t, s, openai.Config{})
	spec := agent.ToolSpec{Name: "delegate_task", Description: "hand work over",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"to": map[string]any{"type": "string"}}}}
	req := request(agent.Message{Role: agent.RoleUser, Content: "ask coder to sort 3 1"})
	req.Tools = []agent.ToolSpec{spec}
	resp, err := p.Chat(context.Background(), req)
	require.NoError(t, err)
	call := agent.ToolCall{ID: "call_abc", Name: "delegate_task", Arguments: `{"to":"coder","task":"sort 3 1"}`}
	assert.Equal(t, &agent.Response{ToolCalls: []agent.ToolCall{call}, FinishReason: "tool_calls",
		Model: "m", Usage: agent.Usage{InputTokens: 12, OutputTokens: 3, CachedTokens: 8}}, resp)

	req.Messages = append(req.Messages,
		agent.Message{Role: agent.RoleAssistant, ToolCalls: resp.ToolCalls},
		agent.Message{Role: agent.RoleTool, Name: "delegate_task", ToolCallID: "call_abc", Content: "delegated task t1 to coder"})
	resp, err = p.Chat(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "asked coder", resp.Content)

	msgs := second["messages"].([]any)
	require.Len(t, msgs, 3)
	assert.Equal(t, map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
		"id": "call_abc", "type": "function",
		"function": map[string]any{"name": "delegate_task", "arguments": `{"to":"coder","task":"sort 3 1"}`},
	}}}, msgs[1])
	assert.Equal(t, map[string]any{"role": "tool", "tool_call_id": "call_abc", "content": "delegated task t1 to coder"}, msgs[2])
	assert.Equal(t, []any{map[string]any{"type": "function", "function": map[string]any{
		"name": "delegate_task", "description": "hand work over", "parameters": spec.Parameters,
	}}}, second["tools"])
}

func TestModelPrecedence(t *testing.T) {
	var models []any
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, body map[string]any, _ int) {
		models = append(models, body["model"])
		writeJSON(w, 200, completion(map[string]any{"content": "ok"}, "stop"))
	})
	withModel := newProvider(t, s, openai.Config{Model: "provider-model"})
	req := request(agent.Message{Role: agent.RoleUser, Content: "hi"})
	req.Model = "agent-model"
	_, err := withModel.Chat(context.Background(), req)
	require.NoError(t, err)
	withoutModel, err := openai.New(openai.Config{APIBase: s.URL + "/v1"})
	require.NoError(t, err)
	_, err = withoutModel.Chat(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, []any{"provider-model", "agent-model"}, models)
}

func TestKeyFromEnvironmentNeverGoesToAnotherServer(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	var auth []string
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ map[string]any, _ int) {
		auth = append(auth, r.Header.Get("Authorization"))
		writeJSON(w, 200, completion(map[string]any{"content": "ok"}, "stop"))
	})
	p := newProvider(t, s, openai.Config{})
	_, err := p.Chat(context.Background(), request(agent.Message{Role: agent.RoleUser, Content: "hi"}))
	require.NoError(t, err)
	assert.Equal(t, []string{""}, auth)
}

func TestConfig(t *testing.T) {
	for _, tt := range []struct {
		cfg  openai.Config
		want string
	}{
		{openai.Config{Timeout: -time.Second}, "timeout: want 0 or more"},
		{openai.Config{MaxRetries: -1}, "maxRetries: want 0 or more"},
		{openai.Config{APIBase: "localhost:8000"}, `apiBase "localhost:8000": want an http or https URL`},
		{openai.Config{APIBase: "ftp://x"}, "want an http or https URL"},
	} {
		_, err := openai.New(tt.cfg)
		assert.ErrorContains(t, err, tt.want)
	}
	cfg := openai.FromConfig(config.ProviderConfig{APIKey: "k", APIBase: "http://h/v1", Model: "m", Timeout: 2.5, MaxRetries: 4})
	assert.Equal(t, openai.Config{APIKey: "k", APIBase: "http://h/v1", Model: "m", Timeout: 2500 * time.Millisecond, MaxRetries: 4}, cfg)
	assert.Equal(t, openai.DefaultTimeout, openai.FromConfig(config.ProviderConfig{}).Timeout)
}
