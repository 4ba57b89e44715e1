package driver

import (
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Errors shared by every backend.
var (
	// ErrClosed is returned by calls on a closed Backend or Inbox.
	ErrClosed = errors.New("mailbox store closed")
	// ErrInboxBusy is returned by OpenInbox when another live process has
	// the agent's inbox open.
	ErrInboxBusy = errors.New("inbox is open in another process")
	// ErrUnknownAgent is returned for an agent that has no card.
	ErrUnknownAgent = errors.New("unknown agent")
	// ErrNoStore is returned by a backend asked to open only an existing
	// store (for reading) when there is none yet: nothing was created.
	ErrNoStore = errors.New("the mailbox store does not exist yet")
	// ErrTurnedOff is wrapped by the error of an optional ability (Browse,
	// ReadAudit, SweepTask, ...) that the store has but its configuration
	// turned off. Callers that can do without it stay quiet about it.
	ErrTurnedOff = errors.New("turned off in the store's configuration")
)

// Sender delivers messages.
type Sender interface {
	// Deliver stores msg in the inbox of msg.To, creating the inbox of an
	// agent that has not registered yet (the message waits for it). On
	// success the message is durable and will be delivered; delivering the
	// same message (same id and timestamp) again is harmless.
	Deliver(ctx context.Context, msg *envelope.Message) error
}

// Registry holds the agent cards.
type Registry interface {
	// UpdateCard applies update to the card of agentID (a zero card with
	// AgentID set if there is none) and stores the result atomically with
	// respect to every other update, in this process or another.
	UpdateCard(ctx context.Context, agentID string, update func(*envelope.Card)) (envelope.Card, error)
	// Card returns one agent's card, or an error wrapping ErrUnknownAgent.
	Card(ctx context.Context, agentID string) (envelope.Card, error)
	// Cards returns every card, sorted by agent id.
	Cards(ctx context.Context) ([]envelope.Card, error)
}

// Backend is one mailbox store, as a driver opens it: the primitives the
// facade (package store) builds everything else on. What a driver can do
// beyond them it offers through the optional abilities (optional.go), each
// found by the facade by type assertion.
type Backend interface {
	Sender
	Registry
	Records
	// OpenInbox takes ownership of agentID's inbox until the Inbox is
	// closed. It fails with ErrInboxBusy if another process holds it.
	OpenInbox(ctx context.Context, agentID string) (Inbox, error)
	// Close releases the backend's resources.
	Close() error
}

// Inbox is one agent's stream of incoming messages.
type Inbox interface {
	// Next claims and returns the next message, waiting until one arrives
	// or ctx ends. Messages left claimed by a crashed owner come first,
	// then pending ones in delivery order (per sender, the order sent).
	// Input that cannot be decoded never reaches the caller: the backend
	// sets it aside with the reason and reports it as an Event.
	Next(ctx context.Context) (*Delivery, error)
	// Ack marks a delivery as handled; it will not be delivered again.
	Ack(ctx context.Context, d *Delivery) error
	// Quarantine sets a delivery aside with a reason (a refused sender, a
	// policy violation); it will not be delivered again.
	Quarantine(ctx context.Context, d *Delivery, reason string) error
	// Close releases the inbox. Claimed but unacknowledged deliveries stay
	// claimed and are redelivered when the inbox is next opened.
	Close() error
}

// Delivery is one claimed message.
type Delivery struct {
	// Message is the decoded, validated message.
	Message *envelope.Message
	// Redelivered is true when the message may have been handed out before
	// (a claim recovered after a crash, a broker redelivery).
	Redelivered bool
	// Ref is the backend's handle for Ack and Quarantine.
	Ref any
}
