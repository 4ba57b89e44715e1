package operator

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/waits"
)

// DeadlockReason is how the reason of a subtask failed to break a
// deadlock begins.
const DeadlockReason = "deadlock broken"

// Broken says how BreakDeadlock broke a cycle.
type Broken struct {
	Cycle waits.Cycle
	// Wait is the wait broken: the cycle's youngest.
	Wait waits.Wait
	// Reason is what the delegator and the worker were told.
	Reason string
}

// BreakDeadlock breaks cycle by failing the subtask of its youngest wait
// (the wait that closed the cycle): its worker gets a task_update
// canceled and its delegator one failed, both with the reason "deadlock
// broken: a → b → a: ..." in each other's name, so that the delegator's
// task goes on without it (and, failing in turn, reaches the chat it
// began in). The break is in the audit log as an escalation event and as
// the operator's two updates.
func (o *Operator) BreakDeadlock(ctx context.Context, cycle waits.Cycle) (Broken, error) {
	if len(cycle.Waits) == 0 {
		return Broken{}, fmt.Errorf("%w: an empty cycle", ErrUsage)
	}
	w := cycle.Youngest()
	reason := fmt.Sprintf("%s: %s: %s's task %s waited on its subtask %s at %s, the wait that closed the cycle; that subtask failed so that the others can go on",
		DeadlockReason, cycle, w.Agent, w.Task, w.Subtask, w.On)
	if _, err := o.endTask(ctx, w.Subtask, reason, envelope.StateFailed, "failed (deadlock)"); err != nil {
		return Broken{}, fmt.Errorf("break deadlock %s: %w", cycle, err)
	}
	o.record(ctx, store.EventEscalation, reason, store.Event{Agent: w.Agent, TaskID: w.Subtask, ThreadID: w.Thread})
	return Broken{Cycle: cycle, Wait: w, Reason: reason}, nil
}
