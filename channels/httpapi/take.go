package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/conversation"
)

// defaultSession is the session of a request that names none; defaultSender
// the sender of one that names nobody.
const (
	defaultSession = "default"
	defaultSender  = "api"
)

// maxName caps a session name, a sender and an idempotency key.
const maxName = 200

// post is a message a request puts into a session.
type post struct {
	session, sender, text string
	key                   string // the client's idempotency key, "" for none
}

// taken is what became of a post.
type taken struct {
	ID        string `json:"id"`
	Session   string `json:"session"`
	Duplicate bool   `json:"duplicate"`
}

// take journals p and hands it to the agent; it answers the request
// itself and returns false when it cannot. A post whose idempotency key
// was taken already (in hand or answered) is not handed over again:
// Duplicate is set then.
func (c *Channel) take(w http.ResponseWriter, r *http.Request, p post) (taken, bool) {
	if !c.isReceiving() {
		writeError(w, http.StatusServiceUnavailable, "unavailable", "the agent is stopping and takes no message now; post it again later, with the same Idempotency-Key")
		return taken{}, false
	}
	for _, f := range [...]struct{ what, v string }{{"session", p.session}, {"sender", p.sender}, {"Idempotency-Key", p.key}} {
		if msg := checkName(f.v); msg != "" {
			writeError(w, http.StatusBadRequest, "invalid_request_error", f.what+": "+msg)
			return taken{}, false
		}
	}
	if strings.TrimSpace(p.text) == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "the message is empty: give its text")
		return taken{}, false
	}
	t := taken{Session: p.session}
	if p.key != "" {
		t.ID = p.session + "/" + p.key // a key names a message of its session
	} else {
		id, err := uuid.NewV7()
		if err != nil {
			writeError(w, http.StatusInternalServerError, "server_error", "message id: "+err.Error())
			return taken{}, false
		}
		t.ID = "http_" + id.String()
	}
	t.Duplicate = c.Journal().Seen(t.ID)
	msg := bus.InboundMessage{ID: t.ID, SenderID: p.sender, ChatID: p.session, Content: p.text, Timestamp: time.Now()}
	conversation.Tag(&msg)
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	switch err := c.HandleMessage(ctx, msg); {
	case errors.Is(err, channels.ErrNotAllowed):
		writeError(w, http.StatusForbidden, "permission_error", "sender "+strconv.Quote(p.sender)+" is not in channels.http.allowFrom")
		return taken{}, false
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, bus.ErrClosed):
		writeError(w, http.StatusServiceUnavailable, "unavailable", "the agent takes no message now ("+err.Error()+"); post it again later, with the same Idempotency-Key")
		return taken{}, false
	case err != nil:
		c.Logger().Error("message not taken", "id", t.ID, "err", err)
		writeError(w, http.StatusInternalServerError, "server_error", "message not taken: "+err.Error())
		return taken{}, false
	}
	return t, true
}

// checkName says what is wrong with a session name, sender or key ("" if
// nothing).
func checkName(v string) string {
	switch {
	case len(v) > maxName:
		return "over " + strconv.Itoa(maxName) + " bytes"
	case strings.ContainsFunc(v, func(r rune) bool { return unicode.IsControl(r) || r == '/' || unicode.IsSpace(r) }):
		return "spaces, slashes and control characters are not allowed in " + strconv.Quote(v)
	}
	return ""
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
