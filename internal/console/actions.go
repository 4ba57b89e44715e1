package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
)

// maxActionBody caps the body of an action request.
const maxActionBody = 1 << 20

// ActionRequest is the JSON body of every POST /api/action/{name}; each
// action reads the fields it needs.
type ActionRequest struct {
	// send: To, Text, Subject, ExpectsReply, Task (send a task), ReplyTo.
	To           string `json:"to"`
	Text         string `json:"text"`
	Subject      string `json:"subject"`
	ExpectsReply bool   `json:"expects_reply"`
	Task         bool   `json:"task"`
	ReplyTo      string `json:"reply_to"`
	// cancel: TaskID, Reason.
	TaskID string `json:"task_id"`
	Reason string `json:"reason"`
	// redeliver, discard: Agent and Ref of a set-aside message; drain:
	// Agent.
	Agent string `json:"agent"`
	Ref   string `json:"ref"`
	// archive: ID of a request; approve, deny: ID of an approval;
	// escalation: ID of an escalation, its Action (retry, reassign,
	// cancel, takeover), Agent (for reassign) and Reason.
	ID     string `json:"id"`
	Action string `json:"action"`
}

// ActionResult is what a successful action answers.
type ActionResult struct {
	OK bool `json:"ok"`
	// Done says what was done, for people.
	Done string `json:"done"`
	// ID is the id of a message sent.
	ID string `json:"id,omitempty"`
}

// errUsage marks a request the operator must change.
var errUsage = operator.ErrUsage

// actions are the operator's actions by name.
func (c *Console) actions() map[string]func(context.Context, ActionRequest) (ActionResult, error) {
	return map[string]func(context.Context, ActionRequest) (ActionResult, error){
		"send":       c.send,
		"cancel":     c.cancel,
		"redeliver":  c.redeliver,
		"discard":    c.discard,
		"archive":    c.archive,
		"drain":      c.drain,
		"approve":    func(ctx context.Context, r ActionRequest) (ActionResult, error) { return c.decide(ctx, r, true) },
		"deny":       func(ctx context.Context, r ActionRequest) (ActionResult, error) { return c.decide(ctx, r, false) },
		"escalation": c.decideEscalation,
	}
}

// serveAction runs one action: POST only (the mux), with the token, a
// JSON body, and from the console's own origin.
func (c *Console) serveAction(w http.ResponseWriter, r *http.Request) {
	act, ok := c.actions()[r.PathValue("name")]
	switch {
	case !ok:
		writeError(w, http.StatusNotFound, fmt.Sprintf("unknown action %q", r.PathValue("name")))
		return
	case !c.hasToken(r):
		writeError(w, http.StatusForbidden, "read-only: actions need the console's token (open the address the console printed at start)")
		return
	case !sameOrigin(r):
		writeError(w, http.StatusForbidden, "refused: the request comes from another site")
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		writeError(w, http.StatusUnsupportedMediaType, "send the action as application/json")
		return
	}
	var req ActionRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxActionBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		if tooBig := (*http.MaxBytesError)(nil); errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge,
				fmt.Sprintf("action body is over the limit of %d MiB; send a shorter text", maxActionBody>>20))
			return
		}
		writeError(w, http.StatusBadRequest, "bad action body: "+err.Error())
		return
	}
	c.mu.Lock()
	res, err := act(r.Context(), req)
	c.mu.Unlock()
	if err != nil {
		status := http.StatusConflict
		switch {
		case errors.Is(err, errUsage):
			status = http.StatusBadRequest
		case operator.IsNotFound(err), errors.Is(err, ErrNoApproval):
			status = http.StatusNotFound
		}
		writeError(w, status, err.Error())
		return
	}
	res.OK = true
	c.hub.publish("action")
	writeJSON(w, http.StatusOK, res)
}

// sameOrigin reports whether the Origin header, when a browser sent one,
// names the host the request was sent to.
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return r.Header.Get("Sec-Fetch-Site") == "" || r.Header.Get("Sec-Fetch-Site") == "same-origin"
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host == r.Host
}

// record appends an operator entry to the audit log (when the store keeps
// one): what was done, to which message, in whose mailbox.
func (c *Console) record(ctx context.Context, what string, ev store.Event) {
	ev.Time, ev.Kind, ev.From, ev.Reason = c.cfg.Now(), store.EventOperator, Operator, what
	if ev.Agent == "" {
		ev.Agent = Operator
	}
	if err := c.cfg.Store.Record(context.WithoutCancel(ctx), ev); err != nil && !errors.Is(err, store.ErrNotSupported) {
		c.cfg.Logger.Warn("record an operator action in the audit log", "action", what, "err", err)
	}
}
