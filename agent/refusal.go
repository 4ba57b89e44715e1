package agent

import (
	"context"
	"time"
)

// Refusal is an answer to an approval that did not decide it, because
// whoever gave it may not decide: a message from another agent (routed
// into the chat or not, a reply or not), or a user of the chat other than
// the one who was asked. The approval still waits; the refusal is kept
// where decisions are (an audit log), so that the attempt is seen.
type Refusal struct {
	// Allow is what the answer said: approve (true) or deny.
	Allow bool `json:"allow"`
	// By is who answered: the sender's id on its channel (an agent id, a
	// chat platform's user id).
	By string `json:"by"`
	// FromAgent is set when the answer came from another agent (By is
	// that agent's id, MessageID its message's).
	FromAgent bool `json:"from_agent,omitempty"`
	// MessageID is the channel's id of the answer, when it has one (the
	// mailbox message's id).
	MessageID string `json:"message_id,omitempty"`
	// Reason says why the answer does not count.
	Reason string    `json:"reason"`
	Time   time.Time `json:"time"`
}

// Summary says what was refused about a, for the audit log and people:
// "refused coder's answer (approve): run tool write_file (...): a message
// from another agent never decides an approval".
func (r Refusal) Summary(a Approval) string {
	word := "deny"
	if r.Allow {
		word = "approve"
	}
	s := "refused " + r.By + "'s answer (" + word + "): " + a.Action
	if a.Detail != "" {
		s += " (" + a.Detail + ")"
	}
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	return s
}

// RefusalRecorder is an ability an ApprovalBook may have (found by type
// assertion): keeping a refused answer where it keeps decisions, as the
// mailbox's book does in the audit log. A book without it loses nothing
// but the record; the agent loop logs every refusal anyway.
type RefusalRecorder interface {
	// RecordRefusal records that r was refused as an answer to a. It
	// never fails the caller: a failure to record is the book's to log.
	RecordRefusal(ctx context.Context, a Approval, r Refusal)
}
