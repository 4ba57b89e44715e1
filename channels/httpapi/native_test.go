package httpapi_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/httpapi"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestPostAndReadAnswers: a message posted into a session is taken (202,
// journaled) and its answer read with a long poll, naming the message it
// answers; a post with the same Idempotency-Key is taken as a duplicate
// and not answered again.
func TestPostAndReadAnswers(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	code, body := h.do("POST", "/api/sessions/s1/messages", `{"text": "hello", "sender": "ada"}`, "Idempotency-Key", "k1")
	require.Equal(t, http.StatusAccepted, code, body)
	assert.JSONEq(t, `{"id": "s1/k1", "session": "s1", "duplicate": false}`, body)
	a := h.poll("s1", 0)
	require.Len(t, a.Answers, 1)
	assert.Equal(t, "echo: hello", a.Answers[0].Text)
	assert.Equal(t, "s1/k1", a.Answers[0].ReplyTo)
	assert.Equal(t, int64(1), a.Next)
	assert.True(t, a.Settled)
	in := h.taken.WaitFor(t, "the message", nil)
	assert.Equal(t, "ada", in.SenderID)
	assert.Equal(t, "http:s1", in.SessionKey())

	code, body = h.do("POST", "/api/sessions/s1/messages", `{"text": "hello", "sender": "ada"}`, "Idempotency-Key", "k1")
	require.Equal(t, http.StatusAccepted, code, body)
	assert.JSONEq(t, `{"id": "s1/k1", "session": "s1", "duplicate": true}`, body)
	req, err := http.NewRequest("POST", h.url+"/api/sessions/s1/messages", strings.NewReader("plain text"))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	a = h.poll("s1", 1)
	require.Len(t, a.Answers, 1)
	assert.Equal(t, "echo: plain text", a.Answers[0].Text, "the repeat of k1 was not answered again")
	assert.Equal(t, 2, h.taken.Count(func(bus.InboundMessage) bool { return true }))

	code, body = h.do("GET", "/api/sessions/nobody/answers", "")
	assert.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"session": "nobody", "answers": [], "next": 0, "settled": true, "open_tasks": []}`, body, "a session with nothing: no wait")
}

// TestEventStream: the session's answers as Server-Sent Events, from
// Last-Event-ID on, as they come.
func TestEventStream(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	code, _ := h.do("POST", "/api/sessions/s1/messages", `{"text": "one"}`)
	require.Equal(t, http.StatusAccepted, code)
	h.poll("s1", 0)

	ctx, cancel := context.WithCancel(testkit.Ctx(t))
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", h.url+"/api/sessions/s1/events", nil)
	require.NoError(t, err)
	req.Header.Set("Last-Event-ID", "1")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	events := make(chan string, 8)
	go func() {
		var ev []string
		for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
			if sc.Text() == "" {
				events <- strings.Join(ev, "\n")
				ev = nil
				continue
			}
			ev = append(ev, sc.Text())
		}
		close(events)
	}()
	code, _ = h.do("POST", "/api/sessions/s1/messages", `{"text": "two"}`)
	require.Equal(t, http.StatusAccepted, code)
	ev := testkit.Recv(t, events, "the event of the second answer")
	lines := strings.Split(ev, "\n")
	require.Len(t, lines, 3, ev)
	assert.Equal(t, "id: 2", lines[0], "the first answer was before Last-Event-ID")
	assert.Equal(t, "event: answer", lines[1])
	var a struct{ Text, ReplyTo string }
	require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(lines[2], "data: ")), &a))
	assert.Equal(t, "echo: two", a.Text)
}

// TestRequestErrors: every error is JSON naming what is wrong.
func TestRequestErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *httpapi.Config) { c.AllowFrom = []string{"ada", "api"}; c.MaxBodyBytes = 1024 })
	for _, tt := range []struct {
		name, method, path, body string
		code                     int
		msg                      string
	}{
		{"bad JSON", "POST", "/api/sessions/s1/messages", `{"text": `, 400, "the body is not the JSON expected"},
		{"empty text", "POST", "/api/sessions/s1/messages", `{"text": " "}`, 400, "the message is empty"},
		{"sender not allowed", "POST", "/api/sessions/s1/messages", `{"text": "hi", "sender": "eve"}`, 403, `sender "eve" is not in channels.http.allowFrom`},
		{"too large", "POST", "/api/sessions/s1/messages", `{"text": "` + strings.Repeat("x", 2000) + `"}`, 413, "over the limit of 1024 bytes (channels.http.maxBodyBytes)"},
		{"bad session", "GET", "/api/sessions/a%20b/answers", "", 400, "session: spaces, slashes and control characters are not allowed"},
		{"bad after", "GET", "/api/sessions/s1/answers?after=x", "", 400, `after: want the seq of an answer (0 or more), got "x"`},
		{"no route", "GET", "/api/nothing", "", 404, "no route GET /api/nothing"},
		{"bad content part", "POST", "/v1/chat/completions", `{"messages": [{"role": "user", "content": [{"type": "image_url"}]}]}`, 400, `messages[0]: content part of type "image_url": only text parts are taken`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, body := h.do(tt.method, tt.path, tt.body)
			assert.Equal(t, tt.code, code, body)
			var e struct {
				Error struct{ Message, Type string }
			}
			require.NoError(t, json.Unmarshal([]byte(body), &e), body)
			assert.Contains(t, e.Error.Message, tt.msg)
			assert.NotEmpty(t, e.Error.Type)
		})
	}
}

// TestBearerToken: with an apiKey, every route but /health wants it.
func TestBearerToken(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *httpapi.Config) { c.APIKey = "s3cret" })
	code, body := h.do("GET", "/v1/models", "")
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Contains(t, body, "missing or wrong bearer token")
	code, _ = h.do("POST", "/api/sessions/s1/messages", `{"text": "hi"}`, "Authorization", "Bearer wrong")
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Equal(t, 0, h.taken.Count(func(bus.InboundMessage) bool { return true }), "nothing taken without the token")
	code, _ = h.do("GET", "/health", "")
	assert.Equal(t, http.StatusOK, code, "health needs no token")
	code, body = h.do("POST", "/api/sessions/s1/messages", `{"text": "hi"}`, "Authorization", "Bearer s3cret")
	assert.Equal(t, http.StatusAccepted, code, body)

	noKey := h.client()
	resp, err := noKey.Models.List(testkit.Ctx(t))
	assert.Error(t, err, "the client's key is not the token")
	assert.Nil(t, resp)
	client := h.client(optionAPIKey("s3cret"))
	models, err := client.Models.List(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Len(t, models.Data, 1)
	assert.NotContains(t, h.logs.String(), "s3cret", "the token is never logged")
}
