package driver

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Heartbeater is a Registry that can renew an agent's heartbeat without
// rewriting its card at every beat: the folder store writes a small
// heartbeat file for its own readers and rewrites the shared registry,
// which other programs read, only when the copy there grows old; the NATS
// store writes the card and the presence key only when they grow old (its
// readers of presence see a key that expires offlineAfter after the last
// one). The mailbox channel heartbeats through it when the store has it,
// and through UpdateCard otherwise.
type Heartbeater interface {
	// Heartbeat records that agentID is alive at now, changing nothing
	// else on its card. Card and Cards report the new heartbeat at once,
	// or (a store that tracks presence apart, PresenceLister) one at most
	// maxAge old; a copy kept for readers that know only the card
	// (nanobot's readers of _registry.json) is renewed when it is older
	// than maxAge. It
	// returns the card as Card would, or an error wrapping
	// ErrUnknownAgent when the agent has no card (the caller writes one
	// with UpdateCard).
	Heartbeat(ctx context.Context, agentID string, now time.Time, maxAge time.Duration) (envelope.Card, error)
}
