package mailbox

import (
	"context"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// onMessage is the handler of a plain message. A message handed over
// again after a crash or a stop that this agent had answered already (a
// reply to it is stored) is acknowledged and not handed to the agent again.
// A request (expects_reply) is held until this agent answers it. A reply to a task or
// request this agent sent is routed to the conversation it began in.
func (c *Channel) onMessage(ctx context.Context, d *store.Delivery, mt meta.Meta, in bus.InboundMessage) (verdict, error) {
	m := d.Message
	held := holdsForReply(m)
	if d.Redelivered && c.storedReply(ctx, view.PendingFromMessage(m)) {
		// Answered before a restart (the answer was sent, the message not
		// yet acknowledged), or by another process on this agent's behalf:
		// owed nothing, and not handed to the agent again.
		return verdict{}, nil
	}
	if m.ReplyTo != "" {
		rec, ok := c.sent.LookupMessage(m.ReplyTo, m.From)
		cb := rec.Callback
		if p, answered := c.replies.Answered(ctx, m.ReplyTo, m.From); !ok && answered {
			cb = p.Callback
		}
		in = routed(in, mt, cb)
	}
	if !held {
		return verdict{publish: true, in: in}, nil
	}
	c.replies.Hold(d) // acknowledged when answered (see Post and Archive)
	return verdict{publish: true, in: in, hold: true, undo: func() { c.replies.Release(m.ID, m.From) }}, nil
}

// holdsForReply reports whether a received message is held (claimed, not
// acknowledged) until this agent answers it: a request other than a task
// (a task is held until it ends).
func holdsForReply(m *envelope.Message) bool {
	return m.ExpectsReply && m.Type != envelope.TypeTask
}
