package mailbox

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// NoticeOverdue marks (in Meta.Notice) the notice that a reply this agent
// waits for did not come by its due time.
const NoticeOverdue = "overdue"

// replyDeadlineLoop watches the due times of the requests this agent sent.
// When one passes without a reply, the agent gets a notice (in the
// conversation the request was sent from, when it has one), once; a late
// reply is still taken.
func (c *Channel) replyDeadlineLoop(ctx context.Context, l *replyLedger) {
	watchDeadlines(ctx, c.now, l.changed, l.nextDue,
		func(p PendingReply) time.Time { return p.Due.Time },
		func(p PendingReply) { c.replyOverdue(ctx, l, p) })
}

// replyOverdue tells the agent that request p is still unanswered.
func (c *Channel) replyOverdue(ctx context.Context, l *replyLedger, p PendingReply) {
	if p.Due.After(c.now()) {
		return // the clock moved back: wait again
	}
	if err := l.markNotified(ctx, p.MessageID); err != nil {
		c.Logger().Warn("record overdue reply", "id", p.MessageID, "err", err)
	}
	meta := Meta{From: p.To, To: c.cfg.AgentID, Type: envelope.TypeMessage, ReplyTo: p.MessageID,
		ThreadID: p.ThreadID, Subject: p.Subject, TaskID: p.TaskID, Notice: NoticeOverdue, Callback: p.Callback}
	in := bus.InboundMessage{Channel: ChannelName, SenderID: p.To, ChatID: p.To,
		Content: overdueReplyNotice(p), Timestamp: c.now()}
	if cb := p.Callback; cb != nil && cb.Channel != "" {
		in.Channel, in.ChatID, in.SessionKeyOverride = cb.Channel, chatIDOf(*cb), cb.SessionID
	}
	in.Metadata = WithMeta(nil, meta)
	c.Logger().Warn("reply overdue", "id", p.MessageID, "to", p.To, "due", p.Due)
	c.record(ctx, store.Event{Kind: store.EventOverdue, Agent: p.To, From: c.cfg.AgentID, MessageID: p.MessageID,
		ThreadID: p.ThreadID, TaskID: p.TaskID, Reason: "no reply by " + p.Due.String()})
	if err := c.Bus().PublishInbound(ctx, in); err != nil && ctx.Err() == nil {
		c.Logger().Error("overdue notice not published", "id", p.MessageID, "err", err)
	}
}

// overdueReplyNotice is what the waiting agent (or its user) is told.
func overdueReplyNotice(p PendingReply) string {
	about := ""
	if p.Subject != "" {
		about = fmt.Sprintf(" about %s", p.Subject)
	}
	return fmt.Sprintf("%s has not replied to your request%s (message %s, sent %s) by %s; the request stays open",
		p.To, about, p.MessageID, p.SentAt.Format(time.RFC3339), p.Due.Format(time.RFC3339))
}
