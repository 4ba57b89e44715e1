package mailbox

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// sentDeadlineLoop watches the deadlines of tasks this agent delegated.
// When one passes without a final update, the task is dropped and the
// conversation it began in gets a notice, so the user learns of it.
func (c *Channel) sentDeadlineLoop(ctx context.Context) {
	watchDeadlines(ctx, c.now, c.sent.changed, c.sent.nextDeadline,
		func(t sentTask) time.Time { return t.Deadline.Time },
		func(t sentTask) { c.overdue(ctx, t) })
}

func (c *Channel) overdue(ctx context.Context, t sentTask) {
	if cur, ok := c.sent.lookup(t.TaskID, t.To); !ok || cur.Deadline == nil || cur.Deadline.After(c.now()) {
		return // ended, or its deadline moved
	}
	if err := c.sent.setState(ctx, t.TaskID, envelope.StateFailed); err != nil {
		c.Logger().Warn("record overdue task", "task", t.TaskID, "err", err)
	}
	c.sweepTask(ctx, t.TaskID)
	meta := Meta{From: t.To, To: c.cfg.AgentID, Type: envelope.TypeTaskUpdate, ThreadID: t.ThreadID,
		Task:    &envelope.Task{ID: t.TaskID, State: envelope.StateFailed, Reason: "no result by deadline"},
		ReplyTo: t.MessageID, Callback: t.Callback}
	in := bus.InboundMessage{Channel: ChannelName, SenderID: t.To, ChatID: t.To,
		Content: overdueNotice(t), Timestamp: c.now()}
	if t.Callback != nil && t.Callback.Channel != "" {
		in.Channel, in.ChatID, in.SessionKeyOverride = t.Callback.Channel, chatIDOf(*t.Callback), t.Callback.SessionID
	} else {
		meta.Callback = nil
	}
	in.Metadata = WithMeta(nil, meta)
	c.Logger().Warn("delegated task overdue", "task", t.TaskID, "to", t.To)
	if err := c.Bus().PublishInbound(ctx, in); err != nil && ctx.Err() == nil {
		c.Logger().Error("overdue notice not published", "task", t.TaskID, "err", err)
	}
}
