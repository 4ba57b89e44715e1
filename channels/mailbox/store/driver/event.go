package driver

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

	// Kinds reported through an Auditor by the mailbox channel and the
	// tools that keep the tree tidy.

	EventDelivered EventKind = "delivered" // handed to the agent (published on its bus)
	EventSwept     EventKind = "swept"     // moved to the archive of its task when the task ended
	EventOverdue   EventKind = "overdue"   // a reply it expects did not come in time
	EventPruned    EventKind = "pruned"    // old handled messages removed by retention
	EventOrphaned  EventKind = "orphaned"  // moved out of the inbox of an agent gone for good

	// EventOperator is an action a person took through the console (a
	// send, a cancel, a redelivery, a discard); Agent and From are
	// "operator", Reason says what was done.
	EventOperator EventKind = "operator"

	// EventUsage records what an agent's turn cost: Agent is the agent,
	// Model the model that answered, InputTokens and OutputTokens the
	// tokens of all the turn's provider calls; MessageID, ThreadID and
	// TaskID name the message the turn answered.
	EventUsage EventKind = "usage"

	// EventApproval is a step of a human approval: asked, approved or
	// denied (by whom is in Reason, "operator" when the operator decided
	// from the command line or the console), or an answer refused because
	// its sender may not decide (another agent: From and MessageID are
	// its). Agent is the agent that waits, Ref the approval's id.
	EventApproval EventKind = "approval"

	// EventKey is a step of an agent's signing key (docs/security.md):
	// pinned on first sight, a changed key refused, a change accepted
	// (by the operator's `switchboard agents trust`, or vouched for by
	// the operator key). Agent is the agent whose key it is, Reason says
	// what happened and names the keys; From and MessageID name the
	// message that showed a changed key, when one did.
	EventKey EventKind = "key"
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
	ThreadID  string    `json:"thread_id,omitempty"`
	TaskID    string    `json:"task_id,omitempty"` // the task the message belongs to

	// For EventUsage.
	Model        string `json:"model,omitempty"`
	InputTokens  int64  `json:"input_tokens,omitempty"`
	OutputTokens int64  `json:"output_tokens,omitempty"`
}

// EventKinds lists every kind, in the order of a message's life.
func EventKinds() []EventKind {
	return []EventKind{EventSent, EventClaimed, EventDelivered, EventProcessed, EventRefused,
		EventQuarantined, EventDuplicate, EventSwept, EventOverdue, EventPruned, EventOrphaned, EventOperator, EventUsage, EventApproval, EventKey}
}

// Observer receives events. It is called synchronously and must not block.
type Observer func(Event)
