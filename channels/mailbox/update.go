package mailbox

import (
	"context"
	"strings"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// onUpdate is the handler of a task_update. A cancel from the agent that
// gave this agent a task ends that task; any other update is about a task
// this agent delegated: its state is recorded and it is routed to the
// conversation the task began in, and a terminal one archives the task's
// messages — only when it comes from the agent the task was sent to: an
// update from anyone else is handed over as a plain notice and changes
// nothing.
func (c *Channel) onUpdate(ctx context.Context, d *store.Delivery, mt meta.Meta, in bus.InboundMessage) (verdict, error) {
	task := d.Message.Task
	if task.State == envelope.StateCanceled {
		if t, ok := c.active.Take(task.ID, mt.From); ok {
			c.waiting.done(task.ID, "")
			c.canceled.add(task.ID)
			c.denyTaskApprovals(ctx, task.ID, mt.From)
			c.cardChanged(ctx)
			if err := c.inbox.Ack(ctx, t.Delivery); err != nil {
				c.Logger().Warn("acknowledge canceled task", "task", task.ID, "err", err)
			}
			return verdict{publish: true, in: in, sweep: task.ID}, nil
		}
	}
	v := verdict{publish: true, in: in}
	rec, ok := c.sent.Lookup(task.ID, mt.From)
	if ok {
		if err := c.sent.SetState(ctx, rec.TaskID, task.State); err != nil {
			c.Logger().Warn("record task state", "task", rec.TaskID, "err", err)
		}
		mt.Tree = meta.TreeAt(rec.ParentTask, rec.ParentPath)
		v.in = routed(in, mt, rec.Callback)
		c.taskRejected(ctx, mt)
		if task.State.Terminal() {
			c.subtaskEnded(ctx, rec, task.Used)
		}
		if c.failParent(ctx, rec, task) {
			// The parent failed with the reason, which travels up the tree;
			// its conversation is over and has nothing to answer.
			v.publish = false
			c.waiting.done(rec.ParentTask, "")
		}
	}
	if task.State.Terminal() && (ok || c.storedTask(ctx, task.ID, mt.From)) {
		v.sweep = task.ID // the task this agent delegated is over
	}
	return v, nil
}

// storedTask reports whether the store holds the task taskID this agent
// sent to agent `to`: a task sent on this agent's behalf from elsewhere
// (the command line) has no record here, and its final update still ends
// it.
func (c *Channel) storedTask(ctx context.Context, taskID, to string) bool {
	found, _ := c.storedIn(ctx, to, func(m *store.Summary) bool {
		return m.Type == envelope.TypeTask && m.Task != nil && m.Task.ID == taskID &&
			m.From == c.cfg.AgentID && m.To == to
	})
	return found
}

// routed returns in addressed to the conversation cb names (the one a
// task or request began in), or in unchanged without one. The record of
// what this agent sent is the only source of cb: a callback written in an
// incoming message is never trusted.
func routed(in bus.InboundMessage, mt meta.Meta, cb *envelope.Callback) bus.InboundMessage {
	if cb == nil || cb.Channel == "" {
		return in
	}
	c := *cb
	mt.Callback = &c
	in.Channel, in.ChatID, in.SessionKeyOverride = c.Channel, chatIDOf(c), c.SessionID
	return frame(in, mt)
}

// chatIDOf returns the callback's chat id, or the part of nanobot's
// "channel:chat" session id after the channel when only that is given.
func chatIDOf(cb envelope.Callback) string {
	if cb.ChatID != "" {
		return cb.ChatID
	}
	if rest, ok := strings.CutPrefix(cb.SessionID, cb.Channel+":"); ok {
		return rest
	}
	return cb.SessionID
}
