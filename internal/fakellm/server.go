package fakellm

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// OpenAI's prompt caching rule, as the fake applies it: a prefix is
// cached from MinCachedTokens on, in steps of CacheStep tokens.
const (
	MinCachedTokens = 1024
	CacheStep       = 128
	// BytesPerToken is the fake's tokenizer: about four bytes a token, as
	// OpenAI's own rule of thumb for English text.
	BytesPerToken = 4
)

// Call is one chat completion request the server answered.
type Call struct {
	// Agent is the caller: the bearer token of the request.
	Agent string
	// Purpose says what the call was for, read from the request: "user"
	// (a person's message), "after-tool" (the answer after a tool result),
	// "judge" (a task's judgement), "task" (the work of a task),
	// "update:<state>" (an update of a delegated task), "announce"
	// (nanobot's subagent result), "other".
	Purpose string
	// InputTokens, CachedTokens and OutputTokens are what the call cost,
	// as reported in its usage.
	InputTokens, CachedTokens, OutputTokens int64
	// Messages is how many messages the request carried (the system
	// prompt included).
	Messages int
}

// Server is the fake endpoint; mount it under any path: it answers POST
// requests whose path ends in /chat/completions. Safe for concurrent use.
type Server struct {
	// DelegateTo is the agent a person's request is delegated to (with
	// delegate_task when offered); default "coder".
	DelegateTo string

	mu       sync.Mutex
	calls    []Call
	prefixes [][]byte // the prompts seen so far, for the cache rule
	held     map[string]*Held
}

// Held is a purpose held back (see Hold).
type Held struct {
	// Arrived is closed when the first request held back arrives.
	Arrived <-chan struct{}
	// GaveUp is closed when the first request held back is given up by
	// its client (its process was killed, say).
	GaveUp <-chan struct{}
	// Release lets the requests held back, and those to come, go on.
	Release func()

	arrived, gaveUp, released chan struct{}
	arrivedOnce, gaveUpOnce   sync.Once
}

// New returns a server delegating to "coder".
func New() *Server { return &Server{DelegateTo: "coder"} }

// Calls returns the calls answered so far, in order.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Hold makes the requests for purpose (see Call.Purpose) wait until
// Release is called; one whose client goes away meanwhile (its process
// was killed) is neither answered nor counted.
func (s *Server) Hold(purpose string) *Held {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = map[string]*Held{}
	}
	h := &Held{arrived: make(chan struct{}), gaveUp: make(chan struct{}), released: make(chan struct{})}
	h.Arrived, h.GaveUp = h.arrived, h.gaveUp
	var once sync.Once
	h.Release = func() {
		once.Do(func() {
			s.mu.Lock()
			if s.held[purpose] == h {
				delete(s.held, purpose)
			}
			s.mu.Unlock()
			close(h.released)
		})
	}
	s.held[purpose] = h
	return h
}

// wait holds a request for purpose back while Hold says so; it reports
// false when the client went away first.
func (s *Server) wait(r *http.Request, purpose string) bool {
	s.mu.Lock()
	h := s.held[purpose]
	s.mu.Unlock()
	if h == nil {
		return true
	}
	h.arrivedOnce.Do(func() { close(h.arrived) })
	select {
	case <-h.released:
		return true
	case <-r.Context().Done():
		h.gaveUpOnce.Do(func() { close(h.gaveUp) })
		return false
	}
}

// Reset forgets the calls and the cache.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls, s.prefixes = nil, nil
}

// request is the part of a chat completion request the fake reads.
type request struct {
	Model    string          `json:"model"`
	Messages json.RawMessage `json:"messages"`
	Tools    json.RawMessage `json:"tools"`
}

// ServeHTTP answers one chat completion request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req request
	var msgs []message
	var tools []tool
	err = json.Unmarshal(body, &req)
	if err == nil {
		err = json.Unmarshal(req.Messages, &msgs)
	}
	if err == nil && len(req.Tools) > 0 {
		err = json.Unmarshal(req.Tools, &tools)
	}
	if err != nil || len(msgs) == 0 {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	a := s.answer(msgs, tools)
	if !s.wait(r, a.purpose) {
		return
	}
	prompt := render(req.Tools, msgs)
	call := Call{Agent: strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), Purpose: a.purpose,
		Messages: len(msgs), InputTokens: Tokens(len(prompt)), OutputTokens: Tokens(len(a.content) + len(a.toolArgs) + len(a.toolName))}
	s.mu.Lock()
	call.CachedTokens = s.cachedLocked(prompt)
	s.prefixes = append(s.prefixes, prompt)
	s.calls = append(s.calls, call)
	n := len(s.calls)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(a.completion(n, req.Model, call))
}

// render is what the model reads of a request, in the order a prompt
// cache keys it: the tools (as compact JSON with sorted keys), then each
// message with its role. It does not depend on how the client wrote its
// JSON, so two clients sending the same conversation cost the same.
func render(rawTools json.RawMessage, msgs []message) []byte {
	var b []byte
	if len(rawTools) > 0 {
		var tools any
		if json.Unmarshal(rawTools, &tools) == nil {
			data, _ := json.Marshal(tools)
			b = append(b, data...)
		}
	}
	for _, m := range msgs {
		b = append(b, "<|"+m.Role+"|>"...)
		b = append(b, m.Name...)
		b = append(b, m.text()...)
		for _, c := range m.ToolCalls {
			b = append(b, "<|call|>"+c.Function.Name+c.Function.Arguments...)
		}
		b = append(b, m.ToolCallID...)
		b = append(b, "<|end|>"...)
	}
	return b
}

// Tokens is the fake's token count of n bytes (rounded up).
func Tokens(n int) int64 { return int64((n + BytesPerToken - 1) / BytesPerToken) }

// cachedLocked returns the tokens of prompt a prompt cache would serve:
// the longest prefix it shares with an earlier prompt, by OpenAI's rule.
func (s *Server) cachedLocked(prompt []byte) int64 {
	best := 0
	for _, p := range s.prefixes {
		n := min(len(p), len(prompt))
		i := 0
		for i < n && p[i] == prompt[i] {
			i++
		}
		best = max(best, i)
	}
	tokens := int64(best / BytesPerToken)
	if tokens < MinCachedTokens {
		return 0
	}
	return tokens / CacheStep * CacheStep
}

// completion is the chat.completion object of answer a.
func (a answer) completion(n int, model string, c Call) map[string]any {
	msg := map[string]any{"role": "assistant", "content": a.content}
	finish := "stop"
	if a.toolName != "" {
		msg["content"] = nil
		msg["tool_calls"] = []any{map[string]any{"id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": a.toolName, "arguments": a.toolArgs}}}
		finish = "tool_calls"
	}
	if model == "" {
		model = "fake-model"
	}
	return map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1700000000, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": c.InputTokens, "completion_tokens": c.OutputTokens,
			"total_tokens":          c.InputTokens + c.OutputTokens,
			"prompt_tokens_details": map[string]any{"cached_tokens": c.CachedTokens}},
	}
}
