package mailbox

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// This file connects the guard rails of package limits to the channel:
// sends are checked in Post (allowSend), receipts in the receive path's
// admit step (refusal), and failures counted toward the recipient's
// breaker here.

// limiter returns the channel's guard, nil before the first Start.
func (c *Channel) limiter() *limits.Guard {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.guard
}

// LimitStats counts what the guard rails refused since the channel
// started (zero before Start), for metrics.
func (c *Channel) LimitStats() limits.Stats {
	if g := c.limiter(); g != nil {
		return g.Stats()
	}
	return limits.Stats{}
}

// OpenBreakers returns the circuit breakers of this agent open now, by
// recipient.
func (c *Channel) OpenBreakers() map[string]limits.Open {
	if g := c.limiter(); g != nil {
		return g.Open()
	}
	return nil
}

// allowSend applies the send limits to msg (see limits.Guard.AllowSend).
func (c *Channel) allowSend(msg *envelope.Message) error {
	if g := c.limiter(); g != nil {
		return g.AllowSend(msg.To, msg.Type)
	}
	return nil
}

// receiveRefusal returns why message m is set aside by the perSender
// limit ("" to take it).
func (c *Channel) receiveRefusal(m *envelope.Message) string {
	if g := c.limiter(); g != nil {
		return g.AllowReceive(m)
	}
	return ""
}

// deliveryFailed counts a failed delivery toward the recipient's breaker.
func (c *Channel) deliveryFailed(ctx context.Context, to string, err error) {
	if g := c.limiter(); g != nil {
		g.Failure(ctx, to, fmt.Sprintf("delivery failed: %v", err))
	}
}

// taskRejected counts a task the recipient rejected toward its breaker
// (an update mt of a task this agent delegated to it).
func (c *Channel) taskRejected(ctx context.Context, mt meta.Meta) {
	if g := c.limiter(); g != nil && mt.Task != nil && mt.Task.State == envelope.StateRejected {
		g.Failure(ctx, mt.From, "task rejected: "+mt.Task.Reason)
	}
}
