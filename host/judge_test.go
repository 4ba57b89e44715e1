package host_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
)

// chatModel is a fake OpenAI-compatible model server for an agent that
// sorts: offered a task (the judge_task tool), it declines counting words
// with a reason and accepts the rest; asked to sort, it answers
// "1 3 5 9". It records the system prompt of every request.
type chatModel struct {
	*httptest.Server
	mu      sync.Mutex
	prompts []string
}

func newChatModel(t *testing.T) *chatModel {
	t.Helper()
	m := &chatModel{}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Role, Content string }
			Tools    []struct{ Function struct{ Name string } }
		}
		data, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(data, &req); err != nil || len(req.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		m.mu.Lock()
		m.prompts = append(m.prompts, req.Messages[0].Content)
		m.mu.Unlock()
		last := req.Messages[len(req.Messages)-1].Content
		msg := map[string]any{"role": "assistant", "content": "1 3 5 9"}
		finish := "stop"
		if len(req.Tools) == 1 && req.Tools[0].Function.Name == "judge_task" {
			verdict := `{"accept": true, "reason": "sorting is what I do"}`
			if strings.Contains(last, "count words") {
				verdict = `{"accept": false, "reason": "I only sort lists; counting words is not my job."}`
			}
			msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"id": "call_1", "type": "function", "function": map[string]any{"name": "judge_task", "arguments": verdict}}}}
			finish = "tool_calls"
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "c1", "object": "chat.completion", "created": 1, "model": "fake",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}})
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *chatModel) systemPrompts() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.prompts...)
}

// A coder on an LLM judges the tasks delegated to it with the model: it
// declines one it is not fit for, and the user who asked for it, chatting
// with the researcher, is told the model's reason; it accepts and does one
// it is fit for. The model read who it is in its system prompt.
func TestHostLLMJudgeDeclinesAndTheUserIsToldWhy(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	model := newChatModel(t)
	coder := w.config("coder", false, map[string]any{"capabilities": []string{"sorting"},
		"description": "sorts lists of numbers", "roles": []string{"dev"}})
	coder.Agents.Defaults.Provider, coder.Agents.Defaults.Model = "vllm", "fake-model"
	coder.Providers["vllm"] = config.ProviderConfig{APIBase: model.URL + "/v1"}
	w.start(coder, host.Options{})
	c := newChat(t, w.start(w.config("researcher", true, nil), host.Options{}), "oc_1")

	c.say("ask coder to count words in a b c")
	assert.Equal(t, "coder could not do it: declined: I only sort lists; counting words is not my job.", c.await("could not"))

	c.say("ask coder to sort 5 3 9 1")
	assert.Equal(t, "coder accepted the task and is working on it.", c.await("accepted"))
	assert.Equal(t, "coder finished: 1 3 5 9", c.await("finished"))

	prompts := model.systemPrompts()
	require.Len(t, prompts, 3, "two judgements and one turn")
	for i, p := range prompts {
		for _, want := range []string{`You are the agent "coder"`, "Description: sorts lists of numbers",
			"Capabilities: sorting", "Roles: dev"} {
			assert.Contains(t, p, want)
		}
		turn := i == 2
		for _, tool := range []string{"- list_agents:", "- delegate_task:", "- reply:"} {
			assert.Equal(t, turn, strings.Contains(p, tool), "the turn's prompt lists the tools, a judgement's only who the agent is: %q", p)
		}
	}
}

// A coder whose model cannot be reached accepts the task (the judgement
// failed, so it accepts and logs a warning), then fails it with a short
// reason; the user is told that, not the server's error.
func TestHostModelFailureFailsTheTaskWithAShortReason(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error": {"message": "upstream exploded at 10.0.0.7"}}`, http.StatusInternalServerError)
	}))
	t.Cleanup(down.Close)
	coder := w.config("coder", false, map[string]any{"capabilities": []string{"sorting"}})
	coder.Agents.Defaults.Provider, coder.Agents.Defaults.Model = "custom", "fake-model"
	coder.Providers["custom"] = config.ProviderConfig{APIBase: down.URL + "/v1", MaxRetries: 0}
	w.start(coder, host.Options{})
	c := newChat(t, w.start(w.config("researcher", true, nil), host.Options{}), "oc_1")

	c.say("ask coder to sort 5 3 9 1")
	assert.Equal(t, "coder could not do it: the model could not be reached", c.await("could not"))
}
