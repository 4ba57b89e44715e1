package mailbox

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// This file keeps the replies owed, both ways (seed 000): a request
// received is held (claimed, not acknowledged) until this agent answers
// it or Archive lets it go, and a request sent is recorded until its
// reply comes, with a notice when the reply does not come in time.

// holdsForReply reports whether a received message is held (claimed, not
// acknowledged) until this agent answers it: a request other than a task
// (a task is held until it ends).
func holdsForReply(m *envelope.Message) bool {
	return m.ExpectsReply && m.Type != envelope.TypeTask
}

// awaitReply records, before it is sent, a request this agent sends, so
// that a reply that does not come in time can be reported. The returned
// function undoes the record if the send fails.
func (c *Channel) awaitReply(ctx context.Context, l *ledger.Replies, msg *envelope.Message, cb *envelope.Callback) (undo func(), err error) {
	if !holdsForReply(msg) {
		return func() {}, nil
	}
	p := view.PendingFromMessage(msg)
	if cb != nil && cb.Channel != "" {
		cp := *cb
		p.Callback = &cp
	}
	if err := l.Await(ctx, p); err != nil {
		return nil, err
	}
	return func() { l.Forget(context.WithoutCancel(ctx), msg.ID) }, nil
}

// releaseAnswered archives the request msg answers, if this agent holds
// it: the reply was delivered, so nothing is owed any more.
func (c *Channel) releaseAnswered(ctx context.Context, l *ledger.Replies, msg *envelope.Message) {
	if msg.ReplyTo == "" {
		return
	}
	h, ok := l.Release(msg.ReplyTo, msg.To)
	if !ok {
		return
	}
	if err := c.inbox.Ack(context.WithoutCancel(ctx), h.Delivery); err != nil {
		c.Logger().Warn("archive answered request; it comes back on restart", "id", msg.ReplyTo, "err", err)
	}
}

// Archive moves a request this agent received, and holds until it is
// answered, to its handled messages. It is refused with ErrReplyOwed
// while no reply from this agent to it is stored: answer it (a message
// with reply_to set to its id, which archives it by itself). A message
// that needs no reply was archived when it was handed to the agent: for
// it, and for one never received here, Archive fails with ErrNotHeld.
func (c *Channel) Archive(ctx context.Context, messageID string) error {
	_, _, l, err := c.state()
	if err != nil {
		return err
	}
	h, ok := l.HeldRequest(messageID)
	if !ok {
		return fmt.Errorf("archive %s: %w (it was never received here, needed no reply, or was archived already)",
			messageID, ErrNotHeld)
	}
	if !c.storedReply(ctx, h.Reply) {
		about := ""
		if h.Reply.Subject != "" {
			about = " about " + h.Reply.Subject
		}
		return fmt.Errorf("archive %s: %w: %s asked%s at %s and has no answer from %s; reply first (a message to %s with reply_to %s)",
			messageID, ErrReplyOwed, h.Reply.From, about, h.Reply.SentAt, c.cfg.AgentID, h.Reply.From, messageID)
	}
	if h, ok := l.Release(messageID, h.Reply.From); ok {
		return c.inbox.Ack(ctx, h.Delivery)
	}
	return nil
}

// PendingReplies returns what this agent owes and waits for: requests and
// tasks received and not answered or ended, and requests and tasks sent
// and not answered or ended; of task taskID only, unless it is empty.
// An empty result for a task is the condition for ending it cleanly
// (seed 000's "no unarchived expects_reply message in the task").
func (c *Channel) PendingReplies(taskID string) view.Pending {
	_, sent, l, err := c.state()
	if err != nil {
		return view.Pending{}
	}
	out := l.Snapshot(taskID)
	for _, t := range c.active.All(taskID) {
		p := view.PendingFromMessage(t.Delivery.Message)
		p.Due = t.Meta.Task.Deadline
		out.Owed = append(out.Owed, p)
	}
	for _, t := range sent.List() {
		if taskID == "" || t.TaskID == taskID {
			out.Awaited = append(out.Awaited, view.PendingReply{MessageID: t.MessageID, From: c.cfg.AgentID, To: t.To,
				Type: envelope.TypeTask, ThreadID: t.ThreadID, TaskID: t.TaskID, SentAt: t.SentAt, Due: t.Deadline,
				Callback: t.Callback})
		}
	}
	return out
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
