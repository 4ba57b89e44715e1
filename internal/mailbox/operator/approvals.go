package operator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Approvals lists the approvals kept, oldest first: those waiting, and
// those decided that their agent has not picked up yet. One past its
// deadline without a decision belongs to an agent that stopped waiting
// (it stopped or crashed): Expired says so.
func (o *Operator) Approvals(ctx context.Context) ([]agent.Approval, error) {
	return o.cfg.Store.Approvals().ListApprovals(ctx)
}

// Expired reports whether a waits no more: undecided past its deadline.
func (o *Operator) Expired(a agent.Approval) bool { return a.Expired(o.cfg.Now()) }

// Decide approves (allow) or denies approval id as the operator, with an
// optional reason, and records the decision. The first decision stands:
// deciding one that has a decision fails with store.ErrDecided and says
// which. One that waits no more (Expired) can only be denied, which
// removes it (Removed then says so); approving it is refused.
func (o *Operator) Decide(ctx context.Context, id string, allow bool, reason string) (Decided, error) {
	ab := o.cfg.Store.Approvals()
	if err := agent.CheckApprovalID(id); err != nil {
		return Decided{}, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	a, err := ab.GetApproval(ctx, id)
	if err != nil {
		return Decided{Approval: a}, err
	}
	expired := o.Expired(a)
	if expired && allow {
		return Decided{Approval: a}, fmt.Errorf("approval %s: %w: its deadline passed at %s and %s no longer waits for it (it stopped); "+
			"it counts as denied: deny it to remove it", id, agent.ErrDecided, a.Deadline.Format("15:04:05"), a.Agent)
	}
	d := agent.Decision{Allow: allow, By: Actor, Reason: strings.TrimSpace(reason), Time: o.cfg.Now()}
	a, err = ab.DecideApproval(ctx, id, d)
	if err != nil {
		return Decided{Approval: a}, err
	}
	what := a.Summary()
	if expired {
		// No agent will pick the decision up: the record goes now.
		if err := ab.DeleteApproval(ctx, id); err != nil {
			return Decided{Approval: a}, fmt.Errorf("approval %s: denied, but not removed: %w", id, err)
		}
		what += " (expired: its agent no longer waited; removed)"
	}
	o.record(ctx, store.EventApproval, what, store.Event{Agent: a.Agent, Ref: a.ID, MessageID: a.MessageID, TaskID: a.TaskID})
	return Decided{Approval: a, Removed: expired}, nil
}

// Decided is an approval as the operator's decision left it.
type Decided struct {
	agent.Approval
	// Removed is set when the approval had expired: denying it removed it.
	Removed bool
}

// IsNotFound reports whether err says an action named nothing that
// exists: no such set-aside message, no such approval, no such
// escalation.
func IsNotFound(err error) bool {
	return errors.Is(err, store.ErrNotSetAside) || errors.Is(err, agent.ErrNoApproval) || isNoEscalation(err)
}
