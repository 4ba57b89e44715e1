package console

import (
	"context"
	"errors"
	"time"
)

// ErrNoApproval is returned when a decision names no waiting approval.
var ErrNoApproval = errors.New("no such approval waiting")

// Approval is an action an agent asked the operator to allow.
type Approval struct {
	ID      string    `json:"id"`
	Agent   string    `json:"agent"`
	Action  string    `json:"action"`
	Detail  string    `json:"detail,omitempty"`
	Created time.Time `json:"created"`
}

// Approvals are the approvals waiting for the operator. The mailbox has
// no approvals yet (the guard rails that ask for them are still to come);
// this is where they will plug in.
type Approvals interface {
	// Waiting lists the approvals waiting, oldest first.
	Waiting(ctx context.Context) ([]Approval, error)
	// Decide allows or denies approval id on behalf of operator.
	Decide(ctx context.Context, id string, allow bool, operator string) error
}

// NoApprovals is the Approvals of a mailbox without guard rails: none is
// ever waiting.
type NoApprovals struct{}

// Waiting implements Approvals: nothing.
func (NoApprovals) Waiting(context.Context) ([]Approval, error) { return []Approval{}, nil }

// Decide implements Approvals: there is nothing to decide.
func (NoApprovals) Decide(_ context.Context, id string, _ bool, _ string) error {
	return errors.Join(ErrNoApproval, errors.New("approval "+id+": no approvals are waiting (this mailbox has no guard rails yet)"))
}
