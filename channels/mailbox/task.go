package mailbox

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// onTask is the handler of a task request: sender allowed (admitted
// before), its task tree neither a cycle nor too deep (meta.CheckTaskPath),
// free capacity, deadline not passed, and the agent's judgement.
// It answers accepted or rejected with a reason; an accepted task goes to
// the agent and stays claimed until it ends.
func (c *Channel) onTask(ctx context.Context, d *store.Delivery, mt meta.Meta, in bus.InboundMessage) (verdict, error) {
	task := d.Message.Task
	if c.active.Has(task.ID) { // a duplicate of a task being worked on: nothing new to do
		return verdict{}, nil
	}
	reason := meta.CheckTaskPath(c.cfg.AgentID, d.Message, c.cfg.Limits.MaxTaskDepth)
	if reason == "" {
		reason = c.taskRefusal(ctx, task, in)
	}
	if reason != "" {
		c.Logger().Info("task rejected", "task", task.ID, "from", mt.From, "reason", reason)
		c.answerTask(ctx, mt, envelope.StateRejected, reason)
		return verdict{sweep: task.ID}, nil
	}
	deadline := c.clk.Now().Add(seconds(c.cfg.TaskTimeout))
	if task.Deadline != nil && task.Deadline.Before(deadline) {
		deadline = task.Deadline.Time
	}
	c.active.Add(task.ID, mt, d, deadline, c.expireTask)
	c.cardChanged(ctx)
	c.answerTask(ctx, mt, envelope.StateAccepted, "")
	return verdict{publish: true, in: in, hold: true, undo: func() { c.active.Take(task.ID, "") }}, nil
}

// taskRefusal returns why a task is rejected ("" to accept it).
func (c *Channel) taskRefusal(ctx context.Context, task *envelope.Task, in bus.InboundMessage) string {
	c.mu.Lock()
	judge := c.judge
	c.mu.Unlock()
	busy := c.active.Len()
	switch {
	case task.Deadline != nil && !task.Deadline.After(c.clk.Now()):
		return "deadline passed"
	case busy >= c.cfg.MaxConcurrentTasks:
		return fmt.Sprintf("over capacity (%d of %d tasks running)", busy, c.cfg.MaxConcurrentTasks)
	case judge != nil:
		if ok, why := judge(ctx, in); !ok {
			return "declined: " + why
		}
	}
	return ""
}

// answerTask sends a task_update for the task in mt back to its sender.
func (c *Channel) answerTask(ctx context.Context, mt meta.Meta, state envelope.TaskState, reason string) {
	_, err := c.Post(ctx, route.Request{To: mt.From, Type: envelope.TypeTaskUpdate, TaskID: mt.Task.ID,
		TaskState: state, Reason: reason, Parent: &mt, ReplyTo: mt.MessageID})
	if err != nil {
		c.Logger().Error("task update not sent", "task", mt.Task.ID, "state", state, "err", err)
	}
}

// FinishTask ends a task this agent works on: it sends the task_update
// (completed, failed or canceled, with the result text and parts), frees the
// capacity and acknowledges the request. The agent loop's reply to a task
// message arrives here through Send. A non-terminal state (working) is
// reported without ending the task, and so is completed while a subtask
// delegated from the task runs (subtasks.go). The final update reports
// what the task used beside its budget (SetBudgets).
func (c *Channel) FinishTask(ctx context.Context, taskID string, state envelope.TaskState, text, reason string, parts []envelope.Part) (*envelope.Message, error) {
	if !state.Terminal() {
		t, ok := c.active.Get(taskID)
		if !ok {
			return nil, fmt.Errorf("update task %s: %w", taskID, ErrTaskNotActive)
		}
		return c.Post(ctx, route.Request{To: t.Meta.From, Type: envelope.TypeTaskUpdate, TaskID: taskID,
			TaskState: state, Text: text, Parts: parts, Parent: &t.Meta, ReplyTo: t.Meta.MessageID})
	}
	if state == envelope.StateCompleted && c.active.Has(taskID) && c.awaitsSubtasks(taskID) {
		// Not done while a subtask runs: the answer is progress, and the
		// task ends with the answer to its last subtask's result.
		return c.FinishTask(ctx, taskID, envelope.StateWorking, text, "", parts)
	}
	t, ok := c.active.Take(taskID, "")
	if !ok {
		return nil, fmt.Errorf("finish task %s: %w (it ended already, or was never accepted here)", taskID, ErrTaskNotActive)
	}
	c.waiting.done(taskID, "")
	c.cardChanged(ctx)
	budget, used := c.spent(ctx, taskID)
	msg, err := c.Post(ctx, route.Request{To: t.Meta.From, Type: envelope.TypeTaskUpdate, TaskID: taskID,
		TaskState: state, Reason: reason, Text: text, Parts: parts, Parent: &t.Meta, ReplyTo: t.Meta.MessageID,
		Budget: budget, Used: used})
	if err == nil {
		c.recordTaskTotal(ctx, msg)
	}
	c.ackEnded(ctx, t, taskID)
	return msg, err
}

// ackEnded acknowledges the request of a task that ended and archives its
// messages.
func (c *Channel) ackEnded(ctx context.Context, t *ledger.Accepted, taskID string) {
	if err := c.inbox.Ack(context.WithoutCancel(ctx), t.Delivery); err != nil {
		c.Logger().Warn("acknowledge ended task", "task", taskID, "err", err)
		return
	}
	ledger.Sweep(ctx, c.inbox, taskID, c.Logger())
}

// expireTask fails a task whose deadline (or taskTimeout) passed.
func (c *Channel) expireTask(taskID string) {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if _, err := c.FinishTask(ctx, taskID, envelope.StateFailed, "", "deadline passed", nil); err != nil {
		c.Logger().Debug("expire task", "task", taskID, "err", err)
	}
}
