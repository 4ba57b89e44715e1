package mailbox

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/mailtrace"
)

// receiveSpan starts the span of m taken from this agent's inbox, on the
// channel's clock, a child of the span that sent it when m carries its
// trace context (a message of nanobot's starts a new trace).
func (c *Channel) receiveSpan(ctx context.Context, m *envelope.Message, redelivered bool) (context.Context, mailtrace.End) {
	return mailtrace.Receive(ctx, c.clk, c.cfg.AgentID, m, redelivered)
}

// sendSpan starts the span of sending msg, on the channel's clock, and
// writes its trace context into msg, so that the receiver's work joins
// this trace.
func (c *Channel) sendSpan(ctx context.Context, msg *envelope.Message) (context.Context, mailtrace.End) {
	return mailtrace.Send(ctx, c.clk, msg)
}
