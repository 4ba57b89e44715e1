package console

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/internal/mailbox/escalate"
)

// redeliver puts a set-aside message back into its agent's inbox.
func (c *Console) redeliver(ctx context.Context, r ActionRequest) (ActionResult, error) {
	if _, err := c.op.Redeliver(ctx, r.Agent, r.Ref); err != nil {
		return ActionResult{}, err
	}
	return ActionResult{Done: "redelivered set-aside " + r.Agent + "/" + r.Ref}, nil
}

// discard removes a set-aside message for good.
func (c *Console) discard(ctx context.Context, r ActionRequest) (ActionResult, error) {
	if err := c.op.Discard(ctx, r.Agent, r.Ref); err != nil {
		return ActionResult{}, err
	}
	return ActionResult{Done: "discarded set-aside " + r.Agent + "/" + r.Ref}, nil
}

// archive applies the channel's rule to a request (operator.Archive):
// refused while a reply is owed.
func (c *Console) archive(ctx context.Context, r ActionRequest) (ActionResult, error) {
	done, err := c.op.Archive(ctx, r.ID)
	if err != nil {
		return ActionResult{}, err
	}
	return ActionResult{Done: done}, nil
}

// cancel ends a task that has not ended (operator.Cancel).
func (c *Console) cancel(ctx context.Context, r ActionRequest) (ActionResult, error) {
	res, err := c.op.Cancel(ctx, r.TaskID, r.Reason)
	if err != nil {
		return ActionResult{}, err
	}
	return ActionResult{Done: "canceled task " + res.TaskID + " (" + res.From + " → " + res.To + ")"}, nil
}

// drain asks a running agent to drain (operator.Drain): it finishes its
// tasks, takes no new ones, then goes offline.
func (c *Console) drain(ctx context.Context, r ActionRequest) (ActionResult, error) {
	d, err := c.op.Drain(ctx, r.Agent, c.cfg.OfflineAfter)
	if err != nil {
		return ActionResult{}, err
	}
	return ActionResult{Done: fmt.Sprintf("asked %s to drain (%d task(s) in hand)", d.Agent, len(d.Tasks))}, nil
}

// decide allows or denies a waiting approval; Approvals records it.
func (c *Console) decide(ctx context.Context, r ActionRequest, allow bool) (ActionResult, error) {
	if err := c.cfg.Approvals.Decide(ctx, r.ID, allow, Operator); err != nil {
		return ActionResult{}, err
	}
	what := "denied approval " + r.ID
	if allow {
		what = "approved " + r.ID
	}
	return ActionResult{Done: what}, nil
}

// decideEscalation decides an escalation of stuck work as the operator
// (operator.DecideEscalation); the agent that escalated acts on it.
func (c *Console) decideEscalation(ctx context.Context, r ActionRequest) (ActionResult, error) {
	e, err := c.op.DecideEscalation(ctx, r.ID, r.Action, r.Agent, r.Reason)
	if err != nil {
		return ActionResult{}, err
	}
	return ActionResult{Done: "decided escalation " + e.ID + ": " + escalate.Decided(*e.Decision) + "; " + e.Agent + " acts on it"}, nil
}
