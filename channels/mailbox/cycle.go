package mailbox

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// failParent ends the task this agent delegated rec's task from when that
// subtask was refused because its task tree went round in a cycle, grew
// too deep or looped (meta.IsCycleRefusal), or failed because its
// budget, which was what was left of the parent's, is spent
// (envelope.BudgetExhausted): the parent fails with the same reason, and
// so on up the tree, until the update reaches the conversation the tree
// began in and the user reads why. It reports whether it failed the
// parent.
func (c *Channel) failParent(ctx context.Context, rec ledger.Record, update *envelope.Task) bool {
	if update.State != envelope.StateRejected && update.State != envelope.StateFailed {
		return false
	}
	cycle := meta.IsCycleRefusal(update.Reason)
	if !cycle && !isBudgetExhausted(update.Reason) || rec.ParentTask == "" || !c.active.Has(rec.ParentTask) {
		return false
	}
	why := "task fails: its subtask ran out of budget"
	if cycle {
		why = "task fails: its subtask was refused as a cycle"
	}
	c.Logger().Warn(why, "task", rec.ParentTask, "subtask", rec.TaskID, "reason", update.Reason)
	if _, err := c.FinishTask(ctx, rec.ParentTask, envelope.StateFailed, "", update.Reason, nil); err != nil {
		c.Logger().Warn("fail the parent task", "task", rec.ParentTask, "err", err)
		return false
	}
	return true
}
