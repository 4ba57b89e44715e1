package store

import "time"

// EventKind names what happened to a message.
type EventKind string

// The kinds of Event a backend reports.
const (
	EventSent        EventKind = "sent"        // stored in a recipient's inbox
	EventClaimed     EventKind = "claimed"     // taken by the recipient
	EventProcessed   EventKind = "processed"   // acknowledged after hand-off
	EventRefused     EventKind = "refused"     // quarantined by policy (Inbox.Quarantine)
	EventQuarantined EventKind = "quarantined" // set aside as unreadable or unsafe
	EventDuplicate   EventKind = "duplicate"   // an already-handled message seen again and dropped
)

// Event describes one thing a backend did with a message. Backends pass
// them to the Observer given in their options; the audit log and the
// command line are built on them.
type Event struct {
	Time      time.Time `json:"time"`
	Kind      EventKind `json:"kind"`
	Agent     string    `json:"agent"`                // whose inbox
	MessageID string    `json:"message_id,omitempty"` // empty when the input could not be decoded
	From      string    `json:"from,omitempty"`
	Ref       string    `json:"ref,omitempty"`    // backend's name for the item (a file name)
	Reason    string    `json:"reason,omitempty"` // for refused and quarantined
}

// Observer receives events. It is called synchronously and must not block.
type Observer func(Event)
