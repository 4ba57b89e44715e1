package mailbox

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// Post sends one message from this agent. A reply (a task_update, or an
// answer to a message this agent received, sent to its sender) keeps the
// thread's trace and is never refused as a loop, but counts toward the
// thread's hop limit. Anything else appends this agent to the trace and
// spends one hop of ttl, and is refused with route.ErrLoop or
// route.ErrTTLExhausted. A task's callback is recorded before delivery so
// that its updates can be routed back, also after a restart; so is a
// request (ExpectsReply), so that a reply that does not come in time is
// reported. A reply archives the request it answers (see Archive).
// The guard rails apply to a new send or forward (guard.go): one over a
// rate limit, or to a recipient whose circuit breaker is open, fails with
// a *route.LimitError that says how long to wait.
func (c *Channel) Post(ctx context.Context, req route.Request) (_ *envelope.Message, err error) {
	backend, sent, owed, err := c.state()
	if err != nil {
		return nil, err
	}
	orig := route.Original(req, c.received.get, c.cfg.DefaultTTL)
	msg, err := route.Compose(c.cfg.AgentID, req, route.ComposeOptions{
		DefaultTTL: c.cfg.DefaultTTL, MaxThreadHops: c.cfg.MaxThreadHops, Now: c.clk.Now(),
		Original: orig, ReplyTimeout: seconds(c.cfg.ReplyTimeout)})
	if err != nil {
		return nil, err
	}
	ctx, end := c.sendSpan(ctx, msg)
	defer func() { end(err) }()
	if orig == nil { // a reply is bounded by the thread's hop cap instead
		if err := c.allowSend(msg); err != nil {
			return nil, err
		}
	}
	recorded := false
	if msg.Type == envelope.TypeTask {
		if err := sent.Add(ctx, delegation(msg, req)); err != nil {
			return nil, err
		}
		recorded = true
	}
	undo, err := c.awaitReply(ctx, owed, msg, req.Callback)
	if err != nil {
		if recorded {
			sent.Remove(context.WithoutCancel(ctx), msg.Task.ID)
		}
		return nil, err
	}
	if err := backend.Deliver(ctx, msg); err != nil {
		if recorded {
			sent.Remove(context.WithoutCancel(ctx), msg.Task.ID)
		}
		undo()
		if ctx.Err() == nil {
			c.deliveryFailed(ctx, msg.To, err)
		}
		return nil, fmt.Errorf("send to %q: %w", msg.To, err)
	}
	if m := c.meterOf(); m != nil {
		m.Sent(msg)
	}
	if recorded {
		c.subtaskSent(msg, meta.TreeOf(req.Tree, req.Parent))
	}
	c.releaseAnswered(ctx, owed, msg)
	return msg, nil
}
