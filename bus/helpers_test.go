package bus_test

import (
	"context"
	"strconv"

	"github.com/switchboard-dev/switchboard/bus"
)

// side is one of the Bus's two queues, so that every queue test runs on
// both. Messages carry a number so that order and identity can be checked.
type side struct {
	name    string
	publish func(ctx context.Context, b *bus.Bus, n int) error
	consume func(ctx context.Context, b *bus.Bus) (int, error)
	depth   func(b *bus.Bus) int
}

var sides = []side{
	{
		name: "inbound",
		publish: func(ctx context.Context, b *bus.Bus, n int) error {
			return b.PublishInbound(ctx, bus.InboundMessage{Channel: "test", ChatID: "chat", Content: strconv.Itoa(n)})
		},
		consume: func(ctx context.Context, b *bus.Bus) (int, error) {
			m, err := b.ConsumeInbound(ctx)
			if err != nil {
				return -1, err
			}
			return strconv.Atoi(m.Content)
		},
		depth: (*bus.Bus).InboundDepth,
	},
	{
		name: "outbound",
		publish: func(ctx context.Context, b *bus.Bus, n int) error {
			return b.PublishOutbound(ctx, bus.OutboundMessage{Channel: "test", ChatID: "chat", Content: strconv.Itoa(n)})
		},
		consume: func(ctx context.Context, b *bus.Bus) (int, error) {
			m, err := b.ConsumeOutbound(ctx)
			if err != nil {
				return -1, err
			}
			return strconv.Atoi(m.Content)
		},
		depth: (*bus.Bus).OutboundDepth,
	},
}
