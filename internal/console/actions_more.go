package console

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/view"
)

// deadLetters returns the store's store.DeadLetters.
func (c *Console) deadLetters() (store.DeadLetters, error) {
	dl, ok := c.cfg.Store.(store.DeadLetters)
	if !ok {
		return nil, fmt.Errorf("this store cannot list or redeliver set-aside messages")
	}
	return dl, nil
}

// redeliver puts a set-aside message back into its agent's inbox.
func (c *Console) redeliver(ctx context.Context, r ActionRequest) (ActionResult, error) {
	dl, err := c.deadLetters()
	if err != nil {
		return ActionResult{}, err
	}
	if err := dl.Redeliver(ctx, r.Agent, r.Ref); err != nil {
		return ActionResult{}, err
	}
	what := "redelivered set-aside " + r.Agent + "/" + r.Ref
	c.record(ctx, what, store.Event{Ref: r.Agent + "/" + r.Ref})
	return ActionResult{Done: what}, nil
}

// discard removes a set-aside message for good.
func (c *Console) discard(ctx context.Context, r ActionRequest) (ActionResult, error) {
	dl, err := c.deadLetters()
	if err != nil {
		return ActionResult{}, err
	}
	if err := dl.Discard(ctx, r.Agent, r.Ref); err != nil {
		return ActionResult{}, err
	}
	what := "discarded set-aside " + r.Agent + "/" + r.Ref
	c.record(ctx, what, store.Event{Ref: r.Agent + "/" + r.Ref})
	return ActionResult{Done: what}, nil
}

// archive applies Channel.Archive's rule to a request: refused while a
// reply is owed. An answered request is held by the process of the agent
// that received it, which archives it itself (at once when its agent
// answers, at its next start when the answer came from elsewhere); the
// console cannot release another process's delivery, and says so.
func (c *Console) archive(ctx context.Context, r ActionRequest) (ActionResult, error) {
	br, ok := c.cfg.Store.(store.Browser)
	if !ok {
		return ActionResult{}, fmt.Errorf("this store cannot list stored messages")
	}
	var all []store.Stored
	if err := br.Browse(ctx, func(s store.Stored) bool { all = append(all, s); return true }); err != nil {
		return ActionResult{}, err
	}
	var req *store.Stored
	for i := range all {
		if m := all[i].Message; m.ID == r.ID && (m.ExpectsReply || m.Task != nil && m.Type != "task_update") {
			req = &all[i]
		}
	}
	if req == nil {
		return ActionResult{}, fmt.Errorf("%w: archive %s: no request with that id", errUsage, r.ID)
	}
	for _, p := range view.PendingOf(all, view.PendingFilter{Now: c.cfg.Now()}) {
		if p.MessageID == r.ID {
			about := ""
			if p.Subject != "" {
				about = " about " + p.Subject
			}
			return ActionResult{}, fmt.Errorf("archive %s: a reply is owed: %s asked%s at %s and has no answer from %s; reply first (a message to %s with reply_to %s)",
				r.ID, p.From, about, p.SentAt, p.To, p.From, r.ID)
		}
	}
	if req.Box == store.BoxProcessed || req.Box == store.BoxArchive {
		return ActionResult{Done: "archive " + r.ID + ": answered and archived already"}, nil
	}
	return ActionResult{}, fmt.Errorf("archive %s: answered, but %s holds it (%s): its agent archives it itself, at its next start if the answer came from elsewhere; the console cannot release another process's delivery",
		r.ID, req.Agent, req.Box)
}

// decide allows or denies a waiting approval.
func (c *Console) decide(ctx context.Context, r ActionRequest, allow bool) (ActionResult, error) {
	if err := c.cfg.Approvals.Decide(ctx, r.ID, allow, Operator); err != nil {
		return ActionResult{}, err
	}
	what := "denied approval " + r.ID
	if allow {
		what = "approved " + r.ID
	}
	c.record(ctx, what, store.Event{Ref: r.ID})
	return ActionResult{Done: what}, nil
}
