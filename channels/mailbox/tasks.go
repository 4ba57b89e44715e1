package mailbox

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// activeTask is a task this agent accepted and works on. Its delivery is
// acknowledged only when the task ends.
type activeTask struct {
	meta     Meta
	delivery *store.Delivery
	timer    *time.Timer
}

func (t *activeTask) stopTimer() {
	if t.timer != nil {
		t.timer.Stop()
	}
}

// receiveTask decides on a task request: sender allowed (checked before),
// free capacity, deadline not passed, and the agent's judgement. It answers
// accepted or rejected with a reason; an accepted task goes to the agent.
func (c *Channel) receiveTask(ctx context.Context, d *store.Delivery, meta Meta, in bus.InboundMessage) error {
	task := d.Message.Task
	c.mu.Lock()
	_, already := c.active[task.ID]
	busy := len(c.active)
	judge := c.judge
	c.mu.Unlock()
	if already { // a duplicate of a task being worked on: nothing new to do
		return c.inbox.Ack(ctx, d)
	}
	reason := ""
	switch {
	case task.Deadline != nil && !task.Deadline.After(c.now()):
		reason = "deadline passed"
	case busy >= c.cfg.MaxConcurrentTasks:
		reason = fmt.Sprintf("over capacity (%d of %d tasks running)", busy, c.cfg.MaxConcurrentTasks)
	case judge != nil:
		if ok, why := judge(ctx, in); !ok {
			reason = "declined: " + why
		}
	}
	if reason != "" {
		c.Logger().Info("task rejected", "task", task.ID, "from", meta.From, "reason", reason)
		c.answerTask(ctx, meta, envelope.StateRejected, reason)
		if err := c.inbox.Ack(ctx, d); err != nil {
			return err
		}
		c.sweepTask(ctx, task.ID)
		return nil
	}
	deadline := c.now().Add(seconds(c.cfg.TaskTimeout))
	if task.Deadline != nil && task.Deadline.Before(deadline) {
		deadline = task.Deadline.Time
	}
	t := &activeTask{meta: meta, delivery: d}
	c.mu.Lock()
	c.active[task.ID] = t
	t.timer = time.AfterFunc(deadline.Sub(c.now()), func() { c.expireTask(task.ID) })
	c.mu.Unlock()
	c.cardChanged(ctx)
	c.answerTask(ctx, meta, envelope.StateAccepted, "")
	if err := c.Bus().PublishInbound(ctx, in); err != nil {
		c.dropActive(task.ID)
		return err
	}
	c.recordMessage(ctx, store.EventDelivered, d.Message, "")
	return nil
}

// answerTask sends a task_update for the task in meta back to its sender.
func (c *Channel) answerTask(ctx context.Context, meta Meta, state envelope.TaskState, reason string) {
	_, err := c.Post(ctx, Request{To: meta.From, Type: envelope.TypeTaskUpdate, TaskID: meta.Task.ID,
		TaskState: state, Reason: reason, Parent: &meta, ReplyTo: meta.MessageID})
	if err != nil {
		c.Logger().Error("task update not sent", "task", meta.Task.ID, "state", state, "err", err)
	}
}

// FinishTask ends a task this agent works on: it sends the task_update
// (completed, failed or canceled, with the result text and parts), frees the
// capacity and acknowledges the request. The agent loop's reply to a task
// message arrives here through Send.
func (c *Channel) FinishTask(ctx context.Context, taskID string, state envelope.TaskState, text, reason string, parts []envelope.Part) (*envelope.Message, error) {
	if !state.Terminal() {
		return c.progressTask(ctx, taskID, state, text)
	}
	c.mu.Lock()
	t, ok := c.active[taskID]
	if ok {
		delete(c.active, taskID)
		t.stopTimer()
	}
	c.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("finish task %s: %w (it ended already, or was never accepted here)", taskID, ErrTaskNotActive)
	}
	c.cardChanged(ctx)
	msg, err := c.Post(ctx, Request{To: t.meta.From, Type: envelope.TypeTaskUpdate, TaskID: taskID,
		TaskState: state, Reason: reason, Text: text, Parts: parts, Parent: &t.meta, ReplyTo: t.meta.MessageID})
	if ackErr := c.inbox.Ack(context.WithoutCancel(ctx), t.delivery); ackErr != nil {
		c.Logger().Warn("acknowledge finished task", "task", taskID, "err", ackErr)
	} else {
		c.sweepTask(ctx, taskID)
	}
	return msg, err
}

// progressTask reports a non-terminal state (working) without ending the task.
func (c *Channel) progressTask(ctx context.Context, taskID string, state envelope.TaskState, text string) (*envelope.Message, error) {
	c.mu.Lock()
	t, ok := c.active[taskID]
	c.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("update task %s: %w", taskID, ErrTaskNotActive)
	}
	return c.Post(ctx, Request{To: t.meta.From, Type: envelope.TypeTaskUpdate, TaskID: taskID,
		TaskState: state, Text: text, Parent: &t.meta, ReplyTo: t.meta.MessageID})
}

// expireTask fails a task whose deadline (or taskTimeout) passed.
func (c *Channel) expireTask(taskID string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.FinishTask(ctx, taskID, envelope.StateFailed, "", "deadline passed", nil); err != nil {
		c.Logger().Debug("expire task", "task", taskID, "err", err)
	}
}

// dropActive forgets a task without answering (its request stays claimed
// and comes back on restart).
func (c *Channel) dropActive(taskID string) {
	c.mu.Lock()
	if t, ok := c.active[taskID]; ok {
		t.stopTimer()
		delete(c.active, taskID)
	}
	c.mu.Unlock()
}

// receiveCancel handles a cancel from the sender of a task this agent works
// on: the task ends and the agent is told. It reports whether the update
// was consumed.
func (c *Channel) receiveCancel(ctx context.Context, d *store.Delivery, meta Meta, in bus.InboundMessage) (bool, error) {
	task := d.Message.Task
	if task.State != envelope.StateCanceled {
		return false, nil
	}
	c.mu.Lock()
	t, ok := c.active[task.ID]
	if ok && t.meta.From == meta.From {
		delete(c.active, task.ID)
		t.stopTimer()
	}
	c.mu.Unlock()
	if !ok || t.meta.From != meta.From {
		return false, nil
	}
	c.cardChanged(ctx)
	if err := c.inbox.Ack(ctx, t.delivery); err != nil {
		c.Logger().Warn("acknowledge canceled task", "task", task.ID, "err", err)
	}
	if err := c.Bus().PublishInbound(ctx, in); err != nil {
		return true, err
	}
	c.recordMessage(ctx, store.EventDelivered, d.Message, "")
	if err := c.inbox.Ack(ctx, d); err != nil {
		return true, err
	}
	c.sweepTask(ctx, task.ID)
	return true, nil
}

// cardChanged writes the new task list to the card at once.
func (c *Channel) cardChanged(ctx context.Context) {
	if err := c.syncCard(ctx); err != nil {
		c.Logger().Warn("update card", "err", err)
	}
}
