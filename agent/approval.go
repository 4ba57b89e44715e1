package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Errors of an ApprovalBook.
var (
	// ErrNoApproval is wrapped when an id names no approval.
	ErrNoApproval = errors.New("no such approval")
	// ErrDecided is wrapped by DecideApproval when the approval has a
	// decision already: the first decision stands.
	ErrDecided = errors.New("the approval was decided already")
)

// Approval is one action an agent asked a person to allow before it runs
// it (a tool call, a task), as an ApprovalBook keeps it while the agent
// waits.
type Approval struct {
	// ID names it (a UUIDv7).
	ID string `json:"id"`
	// Agent is the agent that waits.
	Agent string `json:"agent"`
	// Kind is what waits: "tool" or "task".
	Kind string `json:"kind"`
	// Action says what the agent wants to do, for people ("run tool
	// write_file"); Detail adds the arguments or the task's text, clipped.
	Action string `json:"action"`
	Detail string `json:"detail,omitempty"`
	// Channel and ChatID are the chat the question was asked in (empty
	// when it was asked nowhere: only the command line and the console
	// can answer it then).
	Channel string `json:"channel,omitempty"`
	ChatID  string `json:"chat_id,omitempty"`
	// TaskID and MessageID name what the agent was working on.
	TaskID    string `json:"task_id,omitempty"`
	MessageID string `json:"message_id,omitempty"`
	// Created is when it was asked; Deadline when it is denied unless
	// someone decided before.
	Created  time.Time `json:"created"`
	Deadline time.Time `json:"deadline"`
	// Decision is the decision, once there is one.
	Decision *Decision `json:"decision,omitempty"`
}

// Decision is what was decided about an Approval.
type Decision struct {
	// Allow is true when the action may run.
	Allow bool `json:"allow"`
	// By is who decided: "operator" (the command line, the console), the
	// id of the chat's user who was asked (never another agent: see
	// Refusal), or "timeout".
	By string `json:"by"`
	// Reason says why, when someone said.
	Reason string    `json:"reason,omitempty"`
	Time   time.Time `json:"time"`
}

// Operator is who decided an approval from the command line or the
// console (Decision.By), and the actor of the operator's audit entries.
const Operator = "operator"

// Summary says what happened to a, for the audit log and people: "asked:
// run tool write_file (...)" or "approved by operator: run tool
// write_file (...): reason".
func (a Approval) Summary() string {
	s := "asked: " + a.Action
	if a.Decision != nil {
		s = a.Decision.Verb() + " by " + a.Decision.By + ": " + a.Action
	}
	if a.Detail != "" {
		s += " (" + a.Detail + ")"
	}
	if a.Decision != nil && a.Decision.Reason != "" {
		s += ": " + a.Decision.Reason
	}
	return s
}

// ApprovalKeep is how long an approval no agent waits for any more is
// kept before maintenance removes it: one decided that its agent never
// picked up (it stopped meanwhile), or one past its deadline without a
// decision (its agent stopped while it waited).
const ApprovalKeep = time.Hour

// Expired reports whether a waits no more: it has no decision and its
// deadline passed, so the agent that asked stopped waiting (it stopped or
// crashed; a running agent removes its approval at the deadline).
func (a Approval) Expired(now time.Time) bool {
	return a.Decision == nil && !a.Deadline.IsZero() && now.After(a.Deadline)
}

// Stale reports whether a may be removed at now: decided, or past its
// deadline without a decision, for longer than keep.
func (a Approval) Stale(now time.Time, keep time.Duration) bool {
	if a.Decision != nil {
		return now.Sub(a.Decision.Time) > keep
	}
	return !a.Deadline.IsZero() && now.Sub(a.Deadline) > keep
}

// ErrBadApproval is wrapped when a record read back is no approval an
// agent wrote: JSON that decodes (null, {}) without its agent or times.
var ErrBadApproval = errors.New("not an approval record")

// CheckRecord refuses a that is not a whole record: without its agent,
// its creation or its deadline.
func (a Approval) CheckRecord() error {
	if a.Agent == "" || a.Created.IsZero() || a.Deadline.IsZero() {
		return fmt.Errorf("%w: no agent, creation or deadline", ErrBadApproval)
	}
	return nil
}

// Verb is "approved" or "denied".
func (d Decision) Verb() string {
	if d.Allow {
		return "approved"
	}
	return "denied"
}

// ApprovalBook keeps the approvals agents wait for, so
// that any process (the command line, the console) can list and decide
// them. The folder store keeps a record per approval under _approvals/,
// the NATS store a key per approval in its state bucket.
type ApprovalBook interface {
	// PutApproval stores a waiting approval (a.Decision must be nil); an
	// id that exists is refused.
	PutApproval(ctx context.Context, a Approval) error
	// GetApproval returns one approval, with its decision if it has one,
	// or an error wrapping ErrNoApproval.
	GetApproval(ctx context.Context, id string) (Approval, error)
	// ListApprovals returns every approval kept, oldest first.
	ListApprovals(ctx context.Context) ([]Approval, error)
	// DecideApproval records d as the decision of approval id, atomically
	// with respect to every other decider, in this process or another:
	// the first decision stands. It returns the approval with the
	// decision that stands, and an error wrapping ErrDecided when that is
	// another's (or ErrNoApproval when there is no such approval).
	DecideApproval(ctx context.Context, id string, d Decision) (Approval, error)
	// DeleteApproval forgets approval id and its decision (the agent is
	// done with it); an id that is gone is no error.
	DeleteApproval(ctx context.Context, id string) error
}

// CheckApprovalID refuses an id that cannot name a record: empty, too
// long, or with characters other than letters, digits and '-'.
func CheckApprovalID(id string) error {
	if id == "" || len(id) > 64 {
		return fmt.Errorf("%w: approval id %q: want 1 to 64 letters, digits or '-'", ErrNoApproval, id)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return fmt.Errorf("%w: approval id %q: character %q not allowed", ErrNoApproval, id, r)
		}
	}
	return nil
}

// SortApprovals orders approvals as ApprovalBook.ListApprovals returns
// them: oldest first, then by id.
func SortApprovals(as []Approval) {
	slices.SortFunc(as, func(a, b Approval) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// ErrIfDecided returns the error DecideApproval gives for a, which was
// decided already (wrapping ErrDecided, saying how and by whom), or nil
// when a waits for its decision.
func ErrIfDecided(a Approval) error {
	if a.Decision == nil {
		return nil
	}
	return fmt.Errorf("approval %s: %w (%s by %s)", a.ID, ErrDecided, a.Decision.Verb(), a.Decision.By)
}
