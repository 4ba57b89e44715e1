package console

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/internal/mailbox/operator"
)

// ErrNoApproval is returned when a decision names no waiting approval.
var ErrNoApproval = agent.ErrNoApproval

// Approval is an action an agent asked the operator to allow.
type Approval struct {
	ID     string `json:"id"`
	Agent  string `json:"agent"`
	Kind   string `json:"kind,omitempty"`
	Action string `json:"action"`
	Detail string `json:"detail,omitempty"`
	// Chat names the chat the question was asked in ("channel:chat").
	Chat     string    `json:"chat,omitempty"`
	Created  time.Time `json:"created"`
	Deadline time.Time `json:"deadline,omitzero"`
	// Expired is set when the deadline passed with no decision: its
	// agent no longer waits (it stopped); denying it removes it.
	Expired bool `json:"expired,omitempty"`
}

// Approvals are the approvals waiting for the operator.
type Approvals interface {
	// Waiting lists the approvals without a decision, oldest first: those
	// waiting, and those expired (Approval.Expired).
	Waiting(ctx context.Context) ([]Approval, error)
	// Decide allows or denies approval id on behalf of operator, and
	// records the decision in the audit log.
	Decide(ctx context.Context, id string, allow bool, operator string) error
}

// NoApprovals is the Approvals of a store that keeps none: none is ever
// waiting.
type NoApprovals struct{}

// Waiting implements Approvals: nothing.
func (NoApprovals) Waiting(context.Context) ([]Approval, error) { return []Approval{}, nil }

// Decide implements Approvals: there is nothing to decide.
func (NoApprovals) Decide(_ context.Context, id string, _ bool, _ string) error {
	return errors.Join(ErrNoApproval, errors.New("approval "+id+": this store keeps no approvals"))
}

// StoreApprovals are the approvals the store keeps (store.Store.Approvals), decided
// through an operator.Operator (which records each decision).
type StoreApprovals struct {
	Operator *operator.Operator
}

// Waiting implements Approvals: the approvals without a decision, those
// whose agent still waits and those expired.
func (s StoreApprovals) Waiting(ctx context.Context) ([]Approval, error) {
	all, err := s.Operator.Approvals(ctx)
	if err != nil {
		return nil, err
	}
	out := []Approval{}
	for _, a := range all {
		if a.Decision != nil {
			continue
		}
		r := Approval{ID: a.ID, Agent: a.Agent, Kind: a.Kind, Action: a.Action, Detail: a.Detail,
			Created: a.Created, Deadline: a.Deadline, Expired: s.Operator.Expired(a)}
		if a.Channel != "" {
			r.Chat = a.Channel + ":" + a.ChatID
		}
		out = append(out, r)
	}
	return out, nil
}

// Decide implements Approvals.
func (s StoreApprovals) Decide(ctx context.Context, id string, allow bool, _ string) error {
	_, err := s.Operator.Decide(ctx, id, allow, "")
	return err
}
