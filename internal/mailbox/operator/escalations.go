package operator

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/escalate"
)

// Escalations lists the escalations of stuck work kept on the store,
// oldest first: those waiting for a decision, and those decided that
// their agent has not acted on yet.
func (o *Operator) Escalations(ctx context.Context) ([]store.Escalation, error) {
	return o.cfg.Store.Escalations().List(ctx)
}

// DecideEscalation decides escalation id as the operator: action is
// retry, reassign (to agent), cancel or takeover (the operator takes the
// task into their own hands: it ends, and the user is told). The first
// decision stands; the agent that escalated acts on it.
func (o *Operator) DecideEscalation(ctx context.Context, id, action, agent, reason string) (store.Escalation, error) {
	d := store.EscalationDecision{Action: strings.ToLower(strings.TrimSpace(action)), Agent: agent, By: o.cfg.Actor,
		Level: escalate.Human, Reason: strings.TrimSpace(reason), Time: o.cfg.Now()}
	if d.Action == "take-over" || d.Action == "take_over" {
		d.Action = store.ActTakeOver
	}
	if err := d.CheckAction(); err != nil {
		return store.Escalation{}, fmt.Errorf("%w: %v", ErrUsage, err)
	}
	e, err := o.cfg.Store.Escalations().Decide(ctx, id, d)
	if err != nil {
		return e, err
	}
	o.record(ctx, store.EventEscalation, "decided: "+escalate.Decided(d),
		store.Event{Agent: e.Agent, Ref: e.ID, TaskID: e.TaskID, ThreadID: e.ThreadID})
	return e, nil
}

// isNoEscalation reports whether err says an escalation id names none.
func isNoEscalation(err error) bool { return errors.Is(err, store.ErrNoEscalation) }
