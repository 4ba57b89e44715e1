package channels

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/tracing"
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
	journal   *Journal // nil: messages are not journaled
	progress  Progress // nil: no progress notices
	allowRule AllowRule
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

// IsAllowed reports whether senderID passes the channel's allowFrom list,
// by nanobot's rule (IsAllowed) or the channel's own (UseAllowRule).
func (b *Base) IsAllowed(senderID string) bool {
	if b.allowRule != nil {
		return b.allowRule(b.allowFrom, senderID)
	}
	return IsAllowed(b.allowFrom, senderID)
}

// AllowRule decides whether senderID passes allowFrom.
type AllowRule func(allowFrom []string, senderID string) bool

// UseAllowRule replaces nanobot's exact match (IsAllowed) for a platform
// whose sender ids hold more than one name of the sender, such as
// Telegram's "id|username", which an allowFrom entry of either name
// admits. Call it before the channel starts.
func (b *Base) UseAllowRule(rule AllowRule) { b.allowRule = rule }

// HandleMessage checks the sender against allowFrom and publishes msg on the
// bus as an inbound message of this channel. A refused sender is logged and
// reported as ErrNotAllowed; bus errors (context end, closed bus) are
// returned as they are.
//
// With a journal (UseJournal), the message is first recorded durably and
// handed over with an Ack that records it finished: when HandleMessage
// returns nil the message is safe, and the channel may answer its platform
// that it was taken. A message whose ID is in hand already, or was
// finished lately (the platform's retry, before or after a restart), is
// taken without being handed over twice (see Journal).
//
// With a Progress (UseProgress), a message handed over gets its notice.
func (b *Base) HandleMessage(ctx context.Context, msg bus.InboundMessage) error {
	if !b.IsAllowed(msg.SenderID) {
		b.logger.Warn("message refused: sender not in allowFrom", append(tracing.LogAttrs(msg.ID, msg.Thread, msg.TraceContext), "sender", msg.SenderID)...)
		return fmt.Errorf("channel %q: sender %q: %w", b.name, msg.SenderID, ErrNotAllowed)
	}
	if msg.Channel == "" {
		msg.Channel = b.name
	}
	ctx, span := tracing.StartReceive(tracing.Extract(ctx, msg.TraceContext), tracing.Message{
		System: b.name, Destination: msg.ChatID, ID: msg.ID, Conversation: msg.SessionKey()})
	defer span.End()
	msg.TraceContext = tracing.Inject(ctx)
	if b.journal == nil {
		msg, n := b.withProgress(msg)
		if err := b.bus.PublishInbound(ctx, msg); err != nil {
			return err
		}
		n.start()
		return nil
	}
	rec, added, err := b.journal.Add(msg)
	if err != nil {
		return fmt.Errorf("channel %q: %w", b.name, err)
	}
	if !added {
		b.logger.Debug("message in hand or answered already: taken as a duplicate", "id", rec.ID)
		return nil
	}
	rec, n := b.withProgress(rec)
	if err := b.bus.PublishInbound(ctx, rec); err != nil {
		if derr := b.journal.Drop(rec.ID); derr != nil {
			b.logger.Warn("journal: message not dropped; it is handed over on the next start", "id", rec.ID, "err", derr)
		}
		return err
	}
	n.start()
	return nil
}

// UseJournal makes HandleMessage record every message in j before handing
// it over (see HandleMessage and Journal); the channel closes j when it
// stops. Call Resume once the channel runs, to hand over what an earlier
// run took in and did not finish.
func (b *Base) UseJournal(j *Journal) { b.journal = j }

// Journal returns the journal set with UseJournal, or nil.
func (b *Base) Journal() *Journal { return b.journal }

// Resume hands over again, in order, what the journal kept from an earlier
// run: messages taken in (and answered "taken" to their platform) whose
// turn did not finish. Each is marked Redelivered, so that the agent sends
// an answer it already made rather than answer again. It returns the
// number handed over; what ctx cut short stays for the next start.
func (b *Base) Resume(ctx context.Context) (int, error) {
	if b.journal == nil {
		return 0, nil
	}
	n := 0
	for _, msg := range b.journal.Pending() {
		msg, notice := b.withProgress(msg)
		if err := b.bus.PublishInbound(ctx, msg); err != nil {
			return n, err
		}
		notice.start()
		n++
	}
	if n > 0 {
		b.logger.Info("handed over again what an earlier run took in and did not finish", "messages", n)
	}
	return n, nil
}
