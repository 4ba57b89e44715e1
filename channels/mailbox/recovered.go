package mailbox

import (
	"context"

	"github.com/switchboard-dev/switchboard/bus"
)

// Recovered is closed once the channel has handed its agent again what
// the agent held when it last stopped or crashed (the inbox's redelivered
// messages, published on the bus or otherwise handled), so that a
// consumer of the bus that answers "what is waiting" (the MCP server's
// check_inbox) can wait for those first: on NATS they come back from the
// server a moment after the start. It is nil before Start; on a store that
// cannot tell, it is closed.
func (c *Channel) Recovered() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inbox == nil {
		return nil
	}
	return c.inbox.Recovered()
}

// Published returns how many inbound messages the channel has published
// on its bus so far: with Recovered, a consumer of the bus knows how many
// to take before it has everything the channel handed over.
func (c *Channel) Published() uint64 { return c.published.Load() }

// publish puts in on the bus and counts it (Published).
func (c *Channel) publish(ctx context.Context, in bus.InboundMessage) error {
	if err := c.Bus().PublishInbound(ctx, in); err != nil {
		return err
	}
	c.published.Add(1)
	return nil
}
