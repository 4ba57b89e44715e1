package bus_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
)

// CloseInbound ends the inbound side only: what was queued is still
// consumed, then ErrClosed; outbound messages keep flowing until Close.
func TestCloseInbound(t *testing.T) {
	ctx := t.Context()
	b := bus.New(4)
	require.NoError(t, b.PublishInbound(ctx, bus.InboundMessage{Content: "queued"}))
	require.NoError(t, b.CloseInbound())
	require.NoError(t, b.CloseInbound(), "twice is fine")

	require.ErrorIs(t, b.PublishInbound(ctx, bus.InboundMessage{Content: "late"}), bus.ErrClosed)
	in, err := b.ConsumeInbound(ctx)
	require.NoError(t, err)
	assert.Equal(t, "queued", in.Content)
	_, err = b.ConsumeInbound(ctx)
	require.ErrorIs(t, err, bus.ErrClosed)

	require.NoError(t, b.PublishOutbound(ctx, bus.OutboundMessage{Content: "answer"}))
	out, err := b.ConsumeOutbound(ctx)
	require.NoError(t, err)
	assert.Equal(t, "answer", out.Content)

	require.NoError(t, b.Close(), "Close after CloseInbound")
	_, err = b.ConsumeOutbound(ctx)
	require.ErrorIs(t, err, bus.ErrClosed)
}
