package channels

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/switchboard-dev/switchboard/bus"
)

// IsAllowed applies nanobot's allowFrom rule: a list holding "*" allows
// every sender, an empty list allows none, and otherwise the sender id must
// match an entry exactly.
func IsAllowed(allowFrom []string, senderID string) bool {
	if len(allowFrom) == 0 {
		return false
	}
	if slices.Contains(allowFrom, "*") {
		return true
	}
	return slices.Contains(allowFrom, senderID)
}

// Base holds what every channel shares: its name, its allowFrom list, the bus
// and a logger. Embed it and add Start, Stop and Send.
type Base struct {
	name      string
	allowFrom []string
	bus       *bus.Bus
	logger    *slog.Logger
}

// NewBase returns a Base for the named channel. A nil logger discards.
func NewBase(name string, allowFrom []string, b *bus.Bus, logger *slog.Logger) Base {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return Base{
		name:      name,
		allowFrom: slices.Clone(allowFrom),
		bus:       b,
		logger:    logger.With("channel", name),
	}
}

// Name returns the channel's name.
func (b *Base) Name() string { return b.name }

// AllowFrom returns a copy of the channel's allowFrom list.
func (b *Base) AllowFrom() []string { return slices.Clone(b.allowFrom) }

// Bus returns the bus the channel publishes to.
func (b *Base) Bus() *bus.Bus { return b.bus }

// Logger returns the channel's logger (never nil).
func (b *Base) Logger() *slog.Logger { return b.logger }

// IsAllowed reports whether senderID passes the channel's allowFrom list.
func (b *Base) IsAllowed(senderID string) bool { return IsAllowed(b.allowFrom, senderID) }

// HandleMessage checks the sender against allowFrom and publishes msg on the
// bus as an inbound message of this channel. A refused sender is logged and
// reported as ErrNotAllowed; bus errors (context end, closed bus) are
// returned as they are.
func (b *Base) HandleMessage(ctx context.Context, msg bus.InboundMessage) error {
	if !b.IsAllowed(msg.SenderID) {
		b.logger.Warn("message refused: sender not in allowFrom", "sender", msg.SenderID)
		return fmt.Errorf("channel %q: sender %q: %w", b.name, msg.SenderID, ErrNotAllowed)
	}
	if msg.Channel == "" {
		msg.Channel = b.name
	}
	return b.bus.PublishInbound(ctx, msg)
}
