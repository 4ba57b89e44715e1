package openai_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop/provider/openai"
)

func TestClientErrorIsSurfacedWithoutRetry(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ int) {
		writeJSON(w, 400, apiError("The model `nope` does not exist", "invalid_request_error", "model_not_found"))
	})
	p := newProvider(t, s, openai.Config{MaxRetries: 3})
	_, err := p.Chat(context.Background(), request(agent.Message{Role: agent.RoleUser, Content: "hi"}))
	require.Error(t, err)
	assert.EqualError(t, err, "openai provider: server answered 400 Bad Request: The model `nope` does not exist")
	var se *openai.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 400, se.StatusCode)
	assert.Equal(t, "invalid_request_error", se.Type)
	assert.Equal(t, "model_not_found", se.Code)
	assert.EqualValues(t, 1, s.requests.Load(), "a 400 is not retried")
}

func TestNonJSONErrorBodyIsQuoted(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ int) {
		http.Error(w, "no such route on this gateway", http.StatusNotFound)
	})
	p := newProvider(t, s, openai.Config{})
	_, err := p.Chat(context.Background(), request(agent.Message{Role: agent.RoleUser, Content: "hi"}))
	var se *openai.StatusError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 404, se.StatusCode)
	assert.EqualError(t, err, "openai provider: server answered 404 Not Found: no such route on this gateway")
}

func TestRateLimitIsRetried(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ map[string]any, n int) {
		if n == 1 {
			w.Header().Set("Retry-After", "0")
			writeJSON(w, 429, apiError("slow down", "rate_limit_exceeded", ""))
			return
		}
		writeJSON(w, 200, completion(map[string]any{"content": "finally"}, "stop"))
	})
	p := newProvider(t, s, openai.Config{MaxRetries: 2})
	resp, err := p.Chat(context.Background(), request(agent.Message{Role: agent.RoleUser, Content: "hi"}))
	require.NoError(t, err)
	assert.Equal(t, "finally", resp.Content)
	assert.EqualValues(t, 2, s.requests.Load())
}

func TestServerErrorsAreRetriedThenReported(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ int) {
		w.Header().Set("Retry-After-Ms", "1")
		writeJSON(w, 500, apiError("upstream exploded", "server_error", ""))
	})
	p := newProvider(t, s, openai.Config{MaxRetries: 2})
	_, err := p.Chat(context.Background(), request(agent.Message{Role: agent.RoleUser, Content: "hi"}))
	assert.EqualError(t, err, "openai provider: server answered 500 Internal Server Error: upstream exploded")
	assert.EqualValues(t, 3, s.requests.Load(), "one attempt and two retries")
}

func TestNoRetriesWhenMaxRetriesIsZero(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ int) {
		writeJSON(w, 503, apiError("busy", "", ""))
	})
	p := newProvider(t, s, openai.Config{})
	_, err := p.Chat(context.Background(), request(agent.Message{Role: agent.RoleUser, Content: "hi"}))
	assert.ErrorContains(t, err, "503 Service Unavailable: busy")
	assert.EqualValues(t, 1, s.requests.Load())
}

func TestTimeout(t *testing.T) {
	s := newServer(t, func(_ http.ResponseWriter, r *http.Request, _ map[string]any, _ int) {
		<-r.Context().Done()
	})
	p := newProvider(t, s, openai.Config{Timeout: 50 * time.Millisecond})
	_, err := p.Chat(context.Background(), request(agent.Message{Role: agent.RoleUser, Content: "hi"}))
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, err.Error(), "no answer within 50ms")
}

func TestCallerCancellation(t *testing.T) {
	entered := make(chan struct{})
	s := newServer(t, func(_ http.ResponseWriter, r *http.Request, _ map[string]any, _ int) {
		close(entered)
		<-r.Context().Done()
	})
	p := newProvider(t, s, openai.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-entered; cancel() }()
	_, err := p.Chat(ctx, request(agent.Message{Role: agent.RoleUser, Content: "hi"}))
	assert.ErrorIs(t, err, context.Canceled)
}

func TestTransportFailure(t *testing.T) {
	s := newServer(t, nil)
	p := newProvider(t, s, openai.Config{})
	s.Close()
	_, err := p.Chat(context.Background(), request(agent.Message{Role: agent.RoleUser, Content: "hi"}))
	assert.ErrorContains(t, err, "openai provider: request failed")
}

func TestBadAnswersAndRequests(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, _ *http.Request, _ map[string]any, _ int) {
		writeJSON(w, 200, map[string]any{"id": "x", "object": "chat.completion", "choices": []any{}})
	})
	p := newProvider(t, s, openai.Config{})
	_, err := p.Chat(context.Background(), request(agent.Message{Role: agent.RoleUser, Content: "hi"}))
	assert.EqualError(t, err, "openai provider: the server's answer has no choices")

	_, err = p.Chat(context.Background(), request(agent.Message{Role: "narrator", Content: "hi"}))
	assert.EqualError(t, err, `openai provider: message 0: unknown role "narrator"`)

	noModel, err := openai.New(openai.Config{APIBase: s.URL})
	require.NoError(t, err)
	_, err = noModel.Chat(context.Background(), request())
	assert.ErrorContains(t, err, "no model")
	assert.EqualValues(t, 1, s.requests.Load())
}
