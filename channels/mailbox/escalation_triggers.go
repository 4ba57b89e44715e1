package mailbox

import (
	"context"
	"maps"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/internal/mailbox/escalate"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// This file is where stuck work meets the escalation levels: the places
// of the receive path and of the delegator's watch (delegated.go) where a
// task this agent delegated would fail, or wait unaccepted, hand it to
// escalate instead when channels.mailbox.escalation has a trigger for it.
// Without escalation configured, none of them changes anything.

// stuckUpdate handles the final update of task rec that its worker
// rejected or failed (task), when escalation takes it: a task sent to a
// group goes to the next holder first (every holder is offered it before
// "rejected" escalates); else the task is escalated. It reports whether
// it took the update (v is then the receive path's verdict: nothing for
// the conversation). A refusal that fails the parent task (a cycle, a
// spent budget: failParent) is not taken.
func (c *Channel) stuckUpdate(ctx context.Context, rec ledger.Record, task *envelope.Task, mt meta.Meta) (v verdict, taken bool) {
	trigger := escalate.TriggerOf(task.State, task.Reason)
	if trigger == "" || !c.cfg.Escalation.Triggered(trigger) {
		return verdict{}, false
	}
	if rec.ParentTask != "" && c.active.Has(rec.ParentTask) && (meta.IsCycleRefusal(task.Reason) || isBudgetExhausted(task.Reason)) {
		return verdict{}, false
	}
	said := string(task.State)
	if task.Reason != "" {
		said += " (" + task.Reason + ")"
	}
	if trigger == escalate.Rejected {
		if next, ok := c.nextHolder(ctx, rec); ok {
			rec.Said = maps.Clone(rec.Said)
			if rec.Said == nil {
				rec.Said = map[string]string{}
			}
			rec.Said[rec.To] = said
			err := c.sendAgain(ctx, c.sent, rec, next)
			if err == nil {
				c.taskRejected(ctx, mt)
				c.Logger().Warn("rejected task offered to another worker", "task", rec.TaskID, "from", rec.To, "to", next)
				return verdict{}, true
			}
			c.Logger().Warn("rejected task not offered to another worker", "task", rec.TaskID, "to", next, "err", err)
		}
	}
	if !c.escalate(ctx, rec, trigger, string(task.State), task.Reason) {
		return verdict{}, false
	}
	c.taskRejected(ctx, mt)
	c.escalatedAway(ctx, rec, task.Used)
	return verdict{sweep: task.ID}, true
}

// escalatedAway forgets task rec, which an escalation took over: its
// record, its share of its parent's budget and of what its parent waits
// for (a decision that sends it again makes a new subtask).
func (c *Channel) escalatedAway(ctx context.Context, rec ledger.Record, used *envelope.Budget) {
	if err := c.sent.SetState(ctx, rec.TaskID, envelope.StateFailed); err != nil {
		c.Logger().Warn("record escalated task", "task", rec.TaskID, "err", err)
	}
	c.subtaskEnded(ctx, rec, used)
	if rec.ParentTask != "" {
		c.waiting.done(rec.ParentTask, rec.TaskID)
	}
}

// escalateLost escalates task t, which its worker did not take up in
// time or lost and which no other holder can take (delegated.go's
// reoffer), and reports whether it did: its worker is told it is
// canceled, and its messages are swept.
func (c *Channel) escalateLost(ctx context.Context, t ledger.Record, why string) bool {
	trigger, said := escalate.Failed, "went offline while working on it"
	if t.State == envelope.StatePending || t.State == "" {
		trigger, said = escalate.NotAccepted, "did not accept it in time"
	}
	if !c.escalate(ctx, t, trigger, said, why) {
		return false
	}
	c.cancelAt(ctx, t, why+"; escalated")
	c.escalatedAway(ctx, t, nil)
	ledger.Sweep(ctx, c.inbox, t.TaskID, c.Logger())
	return true
}

// escalateOverdue escalates task t, whose deadline passed without a
// result, and reports whether it did.
func (c *Channel) escalateOverdue(ctx context.Context, t ledger.Record) bool {
	if !c.escalate(ctx, t, escalate.Overdue, "no result by the deadline", "") {
		return false
	}
	c.cancelAt(ctx, t, "no result by deadline; escalated")
	c.escalatedAway(ctx, t, nil)
	ledger.Sweep(ctx, c.inbox, t.TaskID, c.Logger())
	return true
}
