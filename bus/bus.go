package bus

import (
	"context"
	"errors"
)

// ErrClosed is returned by every Bus call made after Close (for consumers:
// once everything queued before Close has been consumed).
var ErrClosed = errors.New("bus: closed")

// DefaultCapacity is the queue capacity New uses when given zero or less.
const DefaultCapacity = 256

// Bus is the in-process message bus: one bounded queue of inbound messages
// (channels to agent) and one of outbound messages (agent to channels). All
// methods are safe for concurrent use.
type Bus struct {
	in  *queue[InboundMessage]
	out *queue[OutboundMessage]
}

// New returns a Bus whose two queues each hold up to capacity messages
// (DefaultCapacity when capacity <= 0).
func New(capacity int) *Bus {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	return &Bus{in: newQueue[InboundMessage](capacity), out: newQueue[OutboundMessage](capacity)}
}

// PublishInbound queues msg for the agent loop. It waits while the queue is
// full and returns ctx.Err() if ctx ends first, or ErrClosed after Close.
func (b *Bus) PublishInbound(ctx context.Context, msg InboundMessage) error {
	return b.in.publish(ctx, &msg)
}

// ConsumeInbound returns the oldest inbound message, waiting for one if the
// queue is empty. It returns ctx.Err() if ctx ends first, and ErrClosed once
// the bus is closed and drained.
func (b *Bus) ConsumeInbound(ctx context.Context) (msg InboundMessage, err error) {
	err = b.in.consume(ctx, &msg)
	return msg, err
}

// PublishOutbound queues msg for the channels, with the waiting rules of
// PublishInbound.
func (b *Bus) PublishOutbound(ctx context.Context, msg OutboundMessage) error {
	return b.out.publish(ctx, &msg)
}

// ConsumeOutbound returns the oldest outbound message, with the waiting rules
// of ConsumeInbound.
func (b *Bus) ConsumeOutbound(ctx context.Context) (msg OutboundMessage, err error) {
	err = b.out.consume(ctx, &msg)
	return msg, err
}

// InboundDepth reports how many inbound messages are queued.
func (b *Bus) InboundDepth() int { return b.in.depth() }

// OutboundDepth reports how many outbound messages are queued.
func (b *Bus) OutboundDepth() int { return b.out.depth() }

// CloseInbound closes the inbound queue only: publishers of inbound
// messages get ErrClosed, the consumer receives what is still queued and
// then ErrClosed, and outbound messages keep flowing until Close. A host
// calls it on shutdown, once its channels stopped taking in messages, so
// that its agent loop answers everything already received and then ends.
// It is idempotent and always returns nil.
func (b *Bus) CloseInbound() error {
	b.in.close()
	return nil
}

// Close closes both queues. Blocked publishers return ErrClosed; consumers
// receive what is still queued, then ErrClosed. Close is idempotent and
// always returns nil.
func (b *Bus) Close() error {
	b.in.close()
	b.out.close()
	return nil
}
