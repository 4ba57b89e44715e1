package bus_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
)

func TestFIFO(t *testing.T) {
	for _, s := range sides {
		t.Run(s.name+"/queued then consumed", func(t *testing.T) {
			ctx := t.Context()
			b := bus.New(100)
			for i := range 100 {
				require.NoError(t, s.publish(ctx, b, i))
			}
			for i := range 100 {
				n, err := s.consume(ctx, b)
				require.NoError(t, err)
				require.Equal(t, i, n)
			}
		})
		t.Run(s.name+"/through a small queue under back-pressure", func(t *testing.T) {
			ctx := t.Context()
			b := bus.New(4)
			const total = 1000
			published := make(chan error, 1)
			go func() {
				for i := range total {
					if err := s.publish(ctx, b, i); err != nil {
						published <- err
						return
					}
				}
				published <- nil
			}()
			for i := range total {
				n, err := s.consume(ctx, b)
				require.NoError(t, err)
				require.Equal(t, i, n)
			}
			require.NoError(t, <-published)
		})
	}
}

func TestQueuesAreIndependent(t *testing.T) {
	ctx := t.Context()
	b := bus.New(4)
	require.NoError(t, b.PublishInbound(ctx, bus.InboundMessage{Content: "in"}))
	require.NoError(t, b.PublishOutbound(ctx, bus.OutboundMessage{Content: "out"}))

	out, err := b.ConsumeOutbound(ctx)
	require.NoError(t, err)
	assert.Equal(t, "out", out.Content)
	in, err := b.ConsumeInbound(ctx)
	require.NoError(t, err)
	assert.Equal(t, "in", in.Content)
}

func TestMessagesPassWhole(t *testing.T) {
	ctx := t.Context()
	b := bus.New(1)
	in := bus.InboundMessage{
		Channel: "feishu", SenderID: "ou_1", ChatID: "oc_1", Content: "hi",
		Media: []string{"/tmp/a.png"}, Metadata: map[string]any{"k": 1},
		SessionKeyOverride: "s", Timestamp: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	out := bus.OutboundMessage{
		Channel: "feishu", ChatID: "oc_1", Content: "hello", ReplyTo: "m1",
		Media: []string{"/tmp/b.png"}, Metadata: map[string]any{"k": 2},
	}
	require.NoError(t, b.PublishInbound(ctx, in))
	require.NoError(t, b.PublishOutbound(ctx, out))
	gotIn, err := b.ConsumeInbound(ctx)
	require.NoError(t, err)
	assert.Equal(t, in, gotIn)
	gotOut, err := b.ConsumeOutbound(ctx)
	require.NoError(t, err)
	assert.Equal(t, out, gotOut)
}

func TestDepth(t *testing.T) {
	tests := []struct {
		name              string
		inbound, outbound int // published
		consumeIn         int // then consumed from inbound
		wantIn, wantOut   int
	}{
		{name: "empty", wantIn: 0, wantOut: 0},
		{name: "inbound only", inbound: 3, wantIn: 3, wantOut: 0},
		{name: "outbound only", outbound: 5, wantIn: 0, wantOut: 5},
		{name: "both", inbound: 2, outbound: 7, wantIn: 2, wantOut: 7},
		{name: "after consuming", inbound: 6, outbound: 1, consumeIn: 4, wantIn: 2, wantOut: 1},
		{name: "full", inbound: 8, outbound: 8, wantIn: 8, wantOut: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			b := bus.New(8)
			for range tt.inbound {
				require.NoError(t, b.PublishInbound(ctx, bus.InboundMessage{}))
			}
			for range tt.outbound {
				require.NoError(t, b.PublishOutbound(ctx, bus.OutboundMessage{}))
			}
			for range tt.consumeIn {
				_, err := b.ConsumeInbound(ctx)
				require.NoError(t, err)
			}
			assert.Equal(t, tt.wantIn, b.InboundDepth(), "InboundDepth")
			assert.Equal(t, tt.wantOut, b.OutboundDepth(), "OutboundDepth")
		})
	}
}

// TestNewCapacity checks how many messages each queue takes before a
// publisher has to wait: the capacity given, or DefaultCapacity for zero or
// less. Time is the bubble's fake clock, so the deadline costs nothing.
func TestNewCapacity(t *testing.T) {
	tests := []struct {
		name     string
		capacity int
		want     int
	}{
		{name: "zero takes the default", capacity: 0, want: bus.DefaultCapacity},
		{name: "negative takes the default", capacity: -3, want: bus.DefaultCapacity},
		{name: "one", capacity: 1, want: 1},
		{name: "explicit", capacity: 5, want: 5},
	}
	for _, tt := range tests {
		for _, s := range sides {
			t.Run(tt.name+"/"+s.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					b := bus.New(tt.capacity)
					for i := range tt.want {
						require.NoError(t, s.publish(t.Context(), b, i))
					}
					assert.Equal(t, tt.want, s.depth(b))

					ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
					defer cancel()
					err := s.publish(ctx, b, tt.want)
					require.ErrorIs(t, err, context.DeadlineExceeded, "queue should be full after %d messages", tt.want)
					assert.Equal(t, tt.want, s.depth(b))
				})
			})
		}
	}
}
