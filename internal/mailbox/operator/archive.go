package operator

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// Archive applies the channel's rule for archiving a request to request
// id, from outside the agent: it is refused with view.ErrReplyOwed while
// a reply is owed. An answered request in the handled or archived box is
// archived already (done is false then). An answered request still held
// by the process of the agent that received it (claimed, or waiting in
// its inbox) is that process's to release: it archives it itself at once
// when its agent answers, and at its next start when the answer came
// from elsewhere. A store delivery belongs to the process that claimed
// it (a claim file, an unacknowledged JetStream message), so no other
// process can release it; Archive says so rather than move it from under
// its owner.
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
	return "", fmt.Errorf("archive %s: answered, but %s holds it (%s): its agent archives it itself, at its next start if the answer came from elsewhere; no other process can release its delivery",
		id, req.Agent, req.Box)
}
