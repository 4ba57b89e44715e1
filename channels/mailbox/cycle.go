package mailbox

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/tasks"
	"github.com/switchboard-dev/switchboard/channels/mailbox/route"
)

// failParentOnCycle ends the task this agent delegated rec's task from,
// when that subtask was refused because its task tree went round in a
// cycle, grew too deep or looped (route.IsCycleRefusal): the parent fails
// with the same reason, and so on up the tree, until the update reaches
// the conversation the tree began in and the user reads why.
func (c *Channel) failParentOnCycle(ctx context.Context, rec tasks.Record, update *envelope.Task) {
	if update.State != envelope.StateRejected && update.State != envelope.StateFailed {
		return
	}
	if !route.IsCycleRefusal(update.Reason) || rec.ParentTask == "" || !c.active.Has(rec.ParentTask) {
		return
	}
	c.Logger().Warn("task fails: its subtask was refused as a cycle", "task", rec.ParentTask,
		"subtask", rec.TaskID, "reason", update.Reason)
	if _, err := c.FinishTask(ctx, rec.ParentTask, envelope.StateFailed, "", update.Reason, nil); err != nil {
		c.Logger().Warn("fail the task of a cycle", "task", rec.ParentTask, "err", err)
	}
}
