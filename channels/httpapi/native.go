package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/conversation"
)

// maxPoll caps the wait of a long poll.
const maxPoll = 120 * time.Second

// keepAlive is how often an idle event stream gets a comment line, so
// that proxies keep it open.
const keepAlive = 15 * time.Second

// messageBody is the JSON body of POST /api/sessions/{session}/messages.
type messageBody struct {
	Text   string `json:"text"`
	Sender string `json:"sender"`
	// ID is the idempotency key, when the client cannot send the header.
	ID string `json:"id"`
}

// postMessage takes a message into a session: 202 once it is journaled.
// A text/plain body is the text itself.
func (c *Channel) postMessage(w http.ResponseWriter, r *http.Request) {
	var body messageBody
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "text/plain" {
		data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, c.cfg.MaxBodyBytes))
		if err != nil {
			writeError(w, http.StatusRequestEntityTooLarge, "invalid_request_error",
				"the body is over the limit of "+itoa(c.cfg.MaxBodyBytes)+" bytes (channels.http.maxBodyBytes)")
			return
		}
		body.Text = string(data)
	} else if !c.decodeBody(w, r, &body) {
		return
	}
	p := post{session: r.PathValue("session"), sender: body.Sender, text: body.Text,
		key: firstOf(r.Header.Get("Idempotency-Key"), body.ID)}
	if p.sender == "" {
		p.sender = defaultSender
	}
	t, ok := c.take(w, r, p)
	if !ok {
		return
	}
	writeJSON(w, http.StatusAccepted, t)
}

// answersBody is the answer of GET /api/sessions/{session}/answers.
type answersBody struct {
	Session string                `json:"session"`
	Answers []conversation.Answer `json:"answers"`
	// Next is the after= of the next poll: the Seq of the last answer.
	Next    int64               `json:"next"`
	Settled bool                `json:"settled"`
	Open    []conversation.Task `json:"open_tasks"`
}

// getAnswers returns the session's answers after ?after= (default 0: all
// kept), waiting up to ?wait= seconds (at most 120) for one when there
// is none yet.
func (c *Channel) getAnswers(w http.ResponseWriter, r *http.Request) {
	session := r.PathValue("session")
	after, wait, ok := pollParams(w, r, session)
	if !ok {
		return
	}
	book := c.conversation()
	answers, _ := book.Since(session, after)
	if len(answers) == 0 && wait > 0 {
		ctx, cancel := context.WithTimeout(r.Context(), wait)
		answers, _ = book.Wait(ctx, session, after)
		cancel()
	}
	st := book.Status(session)
	out := answersBody{Session: session, Answers: answers, Next: after, Settled: st.Settled(), Open: st.Open}
	if out.Answers == nil {
		out.Answers = []conversation.Answer{}
	}
	if n := len(answers); n > 0 {
		out.Next = answers[n-1].Seq
	}
	writeJSON(w, http.StatusOK, out)
}

// pollParams reads ?after= (or the Last-Event-ID header) and ?wait=; it
// answers the request itself and returns false when they are wrong.
func pollParams(w http.ResponseWriter, r *http.Request, session string) (after int64, wait time.Duration, ok bool) {
	if msg := checkName(session); msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "session: "+msg)
		return 0, 0, false
	}
	q := r.URL.Query()
	if v := firstOf(q.Get("after"), r.Header.Get("Last-Event-ID")); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			writeError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("after: want the seq of an answer (0 or more), got %q", v))
			return 0, 0, false
		}
		after = n
	}
	if v := q.Get("wait"); v != "" {
		s, err := strconv.ParseFloat(v, 64)
		if err != nil || !(s >= 0) {
			writeError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("wait: want seconds (0 or more), got %q", v))
			return 0, 0, false
		}
		wait = min(time.Duration(s*float64(time.Second)), maxPoll)
	}
	return after, wait, true
}

// streamAnswers sends the session's answers after ?after= (or
// Last-Event-ID) as Server-Sent Events, as they come, until the client
// leaves or the channel stops: "event: answer", the answer's Seq as the
// event id, the answer as JSON data.
func (c *Channel) streamAnswers(w http.ResponseWriter, r *http.Request) {
	session := r.PathValue("session")
	after, _, ok := pollParams(w, r, session)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	if err := rc.Flush(); err != nil {
		return
	}
	book := c.conversation()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		answers, changed := book.Since(session, after)
		for _, a := range answers {
			data, _ := json.Marshal(a)
			if _, err := fmt.Fprintf(w, "id: %d\nevent: answer\ndata: %s\n\n", a.Seq, data); err != nil {
				return
			}
			after = a.Seq
		}
		if err := rc.Flush(); err != nil {
			return
		}
		select {
		case <-changed:
		case <-tick.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
		case <-r.Context().Done():
			return
		}
	}
}

// firstOf returns the first of vs that is not empty (trimmed).
func firstOf(vs ...string) string {
	for _, v := range vs {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
