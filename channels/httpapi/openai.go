package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/conversation"
)

// completionRequest is what the channel reads of an OpenAI chat
// completion request; other fields (temperature, tools, ...) are
// ignored: the agent decides.
type completionRequest struct {
	Model    string        `json:"model"`
	Messages []chatMessage `json:"messages"`
	Stream   bool          `json:"stream"`
	// User is OpenAI's end-user id: the session (and the sender) when
	// neither session_id nor the X-Session-Id header names one.
	User string `json:"user"`
	// SessionID is nanobot's extension: the session.
	SessionID string `json:"session_id"`
}

// chatMessage is one message of a request; Content is a string or an
// array of content parts.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text returns the message's text: the string, or its text parts joined.
func (m chatMessage) text() (string, error) {
	var s string
	if err := json.Unmarshal(m.Content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Content, &parts); err != nil {
		return "", errors.New("content: want a string or an array of content parts")
	}
	var texts []string
	for _, p := range parts {
		if p.Type != "text" {
			return "", fmt.Errorf("content part of type %q: only text parts are taken", p.Type)
		}
		texts = append(texts, p.Text)
	}
	return strings.Join(texts, "\n"), nil
}

// listModels lists the one model: the agent.
func (c *Channel) listModels(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []map[string]any{
		{"id": c.model, "object": "model", "created": 0, "owned_by": "switchboard"}}})
}

// completions takes the last user message of the request into the
// session the request names, and answers with what the agent answers:
// its reply and, with followTasks, the answers to the final updates of
// the tasks it delegated, joined by blank lines (streamed as they come
// with "stream": true).
func (c *Channel) completions(w http.ResponseWriter, r *http.Request) {
	var req completionRequest
	if !c.decodeBody(w, r, &req) {
		return
	}
	if req.Model != "" && req.Model != c.model {
		writeError(w, http.StatusNotFound, "model_not_found", fmt.Sprintf("model %q: this endpoint serves %q (GET /v1/models)", req.Model, c.model))
		return
	}
	text, err := lastUser(req.Messages)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	p := post{session: firstOf(req.SessionID, r.Header.Get("X-Session-Id"), req.User, defaultSession),
		sender: firstOf(req.User, defaultSender), text: text, key: r.Header.Get("Idempotency-Key")}
	t, ok := c.take(w, r, p)
	if !ok {
		return
	}
	w.Header().Set("X-Session-Id", t.Session)
	w.Header().Set("X-Message-Id", t.ID)
	ctx, cancel := context.WithTimeout(r.Context(), time.Duration(c.cfg.WaitSeconds*float64(time.Second)))
	defer cancel()
	cw := &completionWriter{w: w, id: "chatcmpl-" + t.ID, model: c.model, created: time.Now().Unix(), stream: req.Stream}
	err = c.conversation().Follow(ctx, t.Session, t.ID, c.cfg.FollowTasks, func(a conversation.Answer) { cw.add(a, t.ID) })
	var unsettled *conversation.UnsettledError
	switch {
	case cw.failure != "":
		writeError(w, http.StatusBadGateway, "agent_error", "the agent could not answer: "+cw.failure)
	case errors.As(err, &unsettled) && !unsettled.Answered:
		if r.Context().Err() != nil {
			return // the client left; the message is answered in its session
		}
		writeError(w, http.StatusGatewayTimeout, "timeout", fmt.Sprintf(
			"no answer within %gs (channels.http.waitSeconds); the message %s is taken and will be answered: "+
				"read it with GET /api/sessions/%s/answers, or post again with the same Idempotency-Key", c.cfg.WaitSeconds, t.ID, t.Session))
	default:
		if unsettled != nil {
			c.Logger().Info("completion sent before the tasks it delegated ended", "session", t.Session, "open", unsettled.Status.Open)
		}
		cw.finish(unsettled)
	}
}

// lastUser returns the text of the last user message.
func lastUser(msgs []chatMessage) (string, error) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			text, err := msgs[i].text()
			if err != nil {
				return "", fmt.Errorf("messages[%d]: %w", i, err)
			}
			return text, nil
		}
	}
	return "", errors.New("messages: no message with role \"user\": give the user's message")
}
