package mailbox

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// delegatedDeadlines watches the deadlines of tasks this agent delegated.
// When one passes without a final update, the task is dropped and the
// conversation it began in gets a notice, so the user learns of it.
func (c *Channel) delegatedDeadlines(ctx context.Context, sent *ledger.Delegated) {
	ledger.Watch(ctx, c.clk, sent.Changed(), sent.NextDeadline,
		func(t ledger.Record) time.Time { return t.Deadline.Time },
		func(t ledger.Record) { c.taskOverdue(ctx, sent, t) })
}

func (c *Channel) taskOverdue(ctx context.Context, sent *ledger.Delegated, t ledger.Record) {
	if cur, ok := sent.Lookup(t.TaskID, t.To); !ok || cur.Deadline == nil || cur.Deadline.After(c.clk.Now()) {
		return // ended, or its deadline moved
	}
	if err := sent.SetState(ctx, t.TaskID, envelope.StateFailed); err != nil {
		c.Logger().Warn("record overdue task", "task", t.TaskID, "err", err)
	}
	ledger.Sweep(ctx, c.inbox, t.TaskID, c.Logger())
	mt := meta.Meta{From: t.To, To: c.cfg.AgentID, Type: envelope.TypeTaskUpdate, ThreadID: t.ThreadID,
		Task:    &envelope.Task{ID: t.TaskID, State: envelope.StateFailed, Reason: "no result by deadline"},
		ReplyTo: t.MessageID}
	c.Logger().Warn("delegated task overdue", "task", t.TaskID, "to", t.To)
	c.notify(ctx, mt, t.Callback, ledger.TaskOverdueNotice(t))
}

// replyDeadlines watches the due times of the requests this agent sent.
// When one passes without a reply, the agent gets a notice (in the
// conversation the request was sent from, when it has one), once; a late
// reply is still taken.
func (c *Channel) replyDeadlines(ctx context.Context, l *ledger.Replies) {
	ledger.Watch(ctx, c.clk, l.Changed(), l.NextDue,
		func(p view.PendingReply) time.Time { return p.Due.Time },
		func(p view.PendingReply) { c.replyOverdue(ctx, l, p) })
}

func (c *Channel) replyOverdue(ctx context.Context, l *ledger.Replies, p view.PendingReply) {
	if p.Due.After(c.clk.Now()) {
		return // the clock moved back: wait again
	}
	if err := l.MarkNotified(ctx, p.MessageID); err != nil {
		c.Logger().Warn("record overdue reply", "id", p.MessageID, "err", err)
	}
	mt := meta.Meta{From: p.To, To: c.cfg.AgentID, Type: envelope.TypeMessage, ReplyTo: p.MessageID,
		ThreadID: p.ThreadID, Subject: p.Subject, TaskID: p.TaskID, Notice: meta.NoticeOverdue}
	c.Logger().Warn("reply overdue", "id", p.MessageID, "to", p.To, "due", p.Due)
	c.record(ctx, store.Event{Kind: store.EventOverdue, Agent: p.To, From: c.cfg.AgentID, MessageID: p.MessageID,
		ThreadID: p.ThreadID, TaskID: p.TaskID, Reason: "no reply by " + p.Due.String()})
	c.notify(ctx, mt, p.Callback, ledger.ReplyOverdueNotice(p))
}

// notify tells the agent what the channel itself noticed, as if agent
// mt.From had said it: in the conversation cb names when there is one.
func (c *Channel) notify(ctx context.Context, mt meta.Meta, cb *envelope.Callback, text string) {
	in := frame(bus.InboundMessage{Channel: ChannelName, SenderID: mt.From, ChatID: mt.From,
		Content: text, Timestamp: c.clk.Now()}, mt)
	in = routed(in, mt, cb)
	if err := c.Bus().PublishInbound(ctx, in); err != nil && ctx.Err() == nil {
		c.Logger().Error("notice not published", "id", mt.ReplyTo, "err", err)
	}
}
