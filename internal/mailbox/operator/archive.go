package operator

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// Archive applies the channel's rule for archiving a request to request
// id, from outside the agent: it is refused with view.ErrReplyOwed while
// a reply is owed. An answered request in the handled or archived box is
// archived already. An answered request still in its agent's inbox, or
// left claimed by a process that is gone, is settled as handled
// (store.Store.Settle), whoever held it. One held by the running process
// of its agent is that process's to release (it archives it itself at
// once when its agent answers, and at its next start when the answer came
// from elsewhere): a store delivery belongs to the process that claimed
// it, so Archive says so rather than move it from under its owner; as it
// does on a store that cannot settle a message out of turn (NATS).
func (o *Operator) Archive(ctx context.Context, id string) (done string, err error) {
	if id == "" {
		return "", fmt.Errorf("%w: archive needs a message id", ErrUsage)
	}
	if !o.cfg.Store.Has(store.CanBrowse) {
		return "", lacks("archive", "cannot list stored messages")
	}
	var all []store.Stored
	if err := o.cfg.Store.Browse(ctx, func(s store.Stored) bool { all = append(all, s); return true }); err != nil {
		return "", err
	}
	var req *store.Stored
	for i := range all {
		if m := all[i].Message; m.ID == id && (m.ExpectsReply || m.Task != nil && m.Type != "task_update") {
			req = &all[i]
		}
	}
	if req == nil {
		return "", fmt.Errorf("%w: archive %s: no request with that id (a message sent with expects_reply, or a task)", ErrUsage, id)
	}
	for _, p := range view.PendingOf(all, view.PendingFilter{Now: o.cfg.Now()}) {
		if p.MessageID == id {
			about := ""
			if p.Subject != "" {
				about = " about " + p.Subject
			}
			return "", fmt.Errorf("archive %s: %w: %s asked%s at %s and has no answer from %s; reply first (a message to %s with reply_to %s)",
				id, view.ErrReplyOwed, p.From, about, p.SentAt, p.To, p.From, id)
		}
	}
	if req.Box == store.BoxProcessed || req.Box == store.BoxArchive {
		what := "archive " + id + ": answered, and " + req.Agent + " has handled it already (" + string(req.Box) + ")"
		o.record(ctx, store.EventOperator, what, store.Event{MessageID: id, Ref: req.Ref,
			ThreadID: req.Message.ThreadID, TaskID: req.Message.TaskOf()})
		return what, nil
	}
	err = o.cfg.Store.Settle(ctx, req.Agent, req.Ref)
	switch {
	case errors.Is(err, store.ErrInboxBusy):
		return "", fmt.Errorf("archive %s: answered, but %s is running and holds it (%s): it archives it itself, at its next start if the answer came from elsewhere; no other process can release its delivery",
			id, req.Agent, req.Box)
	case errors.Is(err, store.ErrNotSupported):
		return "", fmt.Errorf("archive %s: answered, but %s holds it (%s) on a store that cannot settle it from outside: %s archives it itself at its next start, without handing it to its agent",
			id, req.Agent, req.Box, req.Agent)
	case err != nil:
		return "", fmt.Errorf("archive %s: %w", id, err)
	}
	what := "archive " + id + ": answered; " + req.Agent + " was not running, and it is now handled (moved out of its " + string(req.Box) + ")"
	o.record(ctx, store.EventOperator, what, store.Event{MessageID: id, Ref: req.Ref,
		ThreadID: req.Message.ThreadID, TaskID: req.Message.TaskOf()})
	return what, nil
}
