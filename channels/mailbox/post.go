package mailbox

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Request is one message to post. Only To is required.
type Request struct {
	To   string
	Type envelope.Type // default message
	Text string
	// Parts are added after the text part.
	Parts []envelope.Part
	// TaskID names the task of a task or task_update (a new task gets a
	// fresh id); TaskState defaults to pending for a task and completed for
	// a task_update; Reason explains a rejection or failure.
	TaskID    string
	TaskState envelope.TaskState
	Reason    string
	// Deadline, when set, is when a task must be done.
	Deadline time.Time
	// Callback names the conversation a task or a request began in; the
	// task's results, the request's reply and a notice that the reply is
	// overdue are routed back there. Only tasks carry it on the wire.
	Callback *envelope.Callback
	// ReplyTo is the id of the message this one answers.
	ReplyTo string
	// Parent is the message being handled when this one is sent, if any: a
	// forward or delegation inherits its trace and ttl.
	Parent *Meta
	// TTL overrides the hop budget of a new message (0: the default).
	TTL int
	// Subject is a kebab-case topic (envelope.ValidateSubject).
	Subject string
	// ExpectsReply makes the message a request: its receiver owes a reply,
	// due by ReplyBy (default: now + channels.mailbox.replyTimeout).
	ExpectsReply bool
	ReplyBy      time.Time
	// Priority is 0 (default) to 3; pending messages of higher priority
	// are taken first.
	Priority int
	// ThreadID joins a new message to an existing thread (a reply always
	// joins the thread of the message it answers).
	ThreadID string
}

// Post sends one message from this agent. A reply (a task_update, or an
// answer to a message this agent received, sent to its sender) keeps the
// thread's trace and is never refused as a loop, but counts toward the
// thread's hop limit. Anything else appends this agent to the trace and
// spends one hop of ttl, and is refused with ErrLoop or ErrTTLExhausted.
// A task's callback is recorded before delivery so that its updates can be
// routed back, also after a restart; so is a request (ExpectsReply), so
// that a reply that does not come in time is reported. A reply archives
// the request it answers (see Archive).
func (c *Channel) Post(ctx context.Context, req Request) (*envelope.Message, error) {
	c.mu.Lock()
	running, backend, sent, replies := c.running, c.backend, c.sent, c.replies
	c.mu.Unlock()
	if !running {
		return nil, ErrNotRunning
	}
	msg, err := c.build(req)
	if err != nil {
		return nil, err
	}
	recorded := false
	if msg.Type == envelope.TypeTask {
		if err := sent.add(ctx, sentFromMessage(msg, req.Callback)); err != nil {
			return nil, err
		}
		recorded = true
	}
	undo, err := c.awaitReply(ctx, replies, msg, req.Callback)
	if err != nil {
		if recorded {
			sent.remove(context.WithoutCancel(ctx), msg.Task.ID)
		}
		return nil, err
	}
	if err := backend.Deliver(ctx, msg); err != nil {
		if recorded {
			sent.remove(context.WithoutCancel(ctx), msg.Task.ID)
		}
		undo()
		return nil, fmt.Errorf("send to %q: %w", msg.To, err)
	}
	c.releaseAnswered(ctx, replies, msg)
	return msg, nil
}

// build turns a request into a message from this agent, applying the
// anti-loop rules with what this agent remembers of messages it received.
func (c *Channel) build(req Request) (*envelope.Message, error) {
	var orig *Meta
	if m, ok := c.repliedTo(req); ok {
		orig = &m
	}
	return Compose(c.cfg.AgentID, req, ComposeOptions{
		DefaultTTL: c.cfg.DefaultTTL, MaxThreadHops: c.cfg.MaxThreadHops, Now: c.now(), Original: orig,
		ReplyTimeout: c.cfg.replyTimeout()})
}

// repliedTo finds the message req answers, if req is a reply: a
// task_update, or a message whose reply_to names a message this agent
// received from the target.
func (c *Channel) repliedTo(req Request) (Meta, bool) {
	if req.Parent != nil && req.Parent.From == req.To &&
		(req.Type == envelope.TypeTaskUpdate || req.ReplyTo == "" || req.ReplyTo == req.Parent.MessageID) {
		return *req.Parent, true
	}
	if req.ReplyTo != "" {
		if m, ok := c.received.get(req.ReplyTo); ok && m.From == req.To {
			return m, true
		}
	}
	if req.Type == envelope.TypeTaskUpdate {
		// An update of a task whose request is no longer remembered: still
		// a reply, starting a fresh count.
		return Meta{TTL: c.cfg.DefaultTTL}, true
	}
	return Meta{}, false
}
