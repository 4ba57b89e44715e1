package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/conversation"
)

// completionWriter writes a chat completion in OpenAI's format, whole or
// as a stream of chunks.
type completionWriter struct {
	w       http.ResponseWriter
	id      string
	model   string
	created int64
	stream  bool

	texts   []string // the answers so far
	failure string   // why the agent could not answer the message
	started bool     // a stream's headers are written
}

// add takes the next answer: the reply to the message id first. A reply
// that is a failure is kept for the error, and nothing is written.
func (cw *completionWriter) add(a conversation.Answer, id string) {
	if len(cw.texts) == 0 && a.ReplyTo == id && a.Failure != "" {
		cw.failure = a.Failure
		return
	}
	if cw.failure != "" {
		return
	}
	text := a.Text
	if len(cw.texts) > 0 {
		text = "\n\n" + text
	}
	cw.texts = append(cw.texts, a.Text)
	if !cw.stream {
		return
	}
	if !cw.started {
		cw.started = true
		h := cw.w.Header()
		h.Set("Content-Type", "text/event-stream")
		h.Set("Cache-Control", "no-cache")
		cw.w.WriteHeader(http.StatusOK)
		cw.chunk(map[string]any{"role": "assistant", "content": text}, nil)
		return
	}
	cw.chunk(map[string]any{"content": text}, nil)
}

// finish writes the end of the completion; unsettled, when set, says
// what was still to come when the wait ended (a header of a whole
// completion; a stream just ends).
func (cw *completionWriter) finish(unsettled *conversation.UnsettledError) {
	stop := "stop"
	if cw.stream {
		cw.chunk(map[string]any{}, &stop)
		_, _ = fmt.Fprint(cw.w, "data: [DONE]\n\n")
		_ = http.NewResponseController(cw.w).Flush()
		return
	}
	if unsettled != nil {
		ids := make([]string, len(unsettled.Status.Open))
		for i, t := range unsettled.Status.Open {
			ids[i] = t.ID
		}
		cw.w.Header().Set("X-Open-Tasks", strings.Join(ids, ","))
	}
	writeJSON(cw.w, http.StatusOK, map[string]any{
		"id": cw.id, "object": "chat.completion", "created": cw.created, "model": cw.model,
		"choices": []map[string]any{{"index": 0, "finish_reason": stop,
			"message": map[string]any{"role": "assistant", "content": strings.Join(cw.texts, "\n\n")}}},
		"usage": map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
	})
}

// chunk writes one chunk of a stream and flushes it.
func (cw *completionWriter) chunk(delta map[string]any, finish *string) {
	data, _ := json.Marshal(map[string]any{
		"id": cw.id, "object": "chat.completion.chunk", "created": cw.created, "model": cw.model,
		"choices": []map[string]any{{"index": 0, "delta": delta, "finish_reason": finish}},
	})
	_, _ = fmt.Fprintf(cw.w, "data: %s\n\n", data)
	_ = http.NewResponseController(cw.w).Flush()
}
