package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Approvals is the store's agent.ApprovalBook, for every backend alike:
// an approval is two records, the question on driver.ShelfApprovals,
// created once by the agent that asks, and the decision on
// driver.ShelfDecisions, created by whoever decides first (of several
// deciders, in this process or another, exactly one creates it). The
// folder store keeps them as _approvals/<id>.json and
// _approvals/<id>.decision.json under the mailbox root, NATS as the keys
// _approval.<id> and _decision.<id> of its state bucket.
type Approvals struct {
	r   driver.Records
	log *slog.Logger
}

var _ agent.ApprovalBook = (*Approvals)(nil)

// Approvals returns the store's approval book.
func (s *Store) Approvals() *Approvals { return s.approvals }

// checkApprovalID refuses an id that cannot name an approval (wrapping
// agent.ErrNoApproval), and returns its two records.
func checkApprovalID(id string) (question, decision driver.Record, err error) {
	if err := agent.CheckApprovalID(id); err != nil {
		return question, decision, err
	}
	if err := driver.CheckRecordKey(id); err != nil {
		return question, decision, fmt.Errorf("%w: %v", agent.ErrNoApproval, err)
	}
	return driver.Record{Shelf: driver.ShelfApprovals, Key: id}, driver.Record{Shelf: driver.ShelfDecisions, Key: id}, nil
}

// PutApproval implements agent.ApprovalBook.
func (b *Approvals) PutApproval(ctx context.Context, a agent.Approval) error {
	question, _, err := checkApprovalID(a.ID)
	if err != nil {
		return err
	}
	if a.Decision != nil {
		return fmt.Errorf("put approval %s: a new approval has no decision", a.ID)
	}
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	if err := b.r.CreateRecord(ctx, question, data); err != nil {
		return fmt.Errorf("put approval %s: %w", a.ID, err)
	}
	return nil
}

// GetApproval implements agent.ApprovalBook.
func (b *Approvals) GetApproval(ctx context.Context, id string) (agent.Approval, error) {
	question, decision, err := checkApprovalID(id)
	if err != nil {
		return agent.Approval{}, err
	}
	var a agent.Approval
	data, err := b.r.LoadRecord(ctx, question)
	if errors.Is(err, driver.ErrNoRecord) {
		return a, fmt.Errorf("approval %s: %w", id, agent.ErrNoApproval)
	}
	if err != nil {
		return a, fmt.Errorf("approval %s: %w", id, err)
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return a, fmt.Errorf("approval %s: %w", id, err)
	}
	a.ID, a.Decision = id, nil
	data, err = b.r.LoadRecord(ctx, decision)
	switch {
	case errors.Is(err, driver.ErrNoRecord):
	case err != nil:
		return a, fmt.Errorf("approval %s: %w", id, err)
	default:
		var d agent.Decision
		if err := json.Unmarshal(data, &d); err != nil {
			return a, fmt.Errorf("approval %s: decision: %w", id, err)
		}
		a.Decision = &d
	}
	if err := a.CheckRecord(); err != nil {
		return a, fmt.Errorf("approval %s: %w", id, err)
	}
	return a, nil
}

// ListApprovals implements agent.ApprovalBook. Records that cannot be
// read are skipped with a warning.
func (b *Approvals) ListApprovals(ctx context.Context) ([]agent.Approval, error) {
	ids, err := b.r.ListRecords(ctx, driver.ShelfApprovals)
	if err != nil {
		return nil, fmt.Errorf("approvals: %w", err)
	}
	out := []agent.Approval{}
	for _, id := range ids {
		a, err := b.GetApproval(ctx, id)
		if errors.Is(err, agent.ErrNoApproval) {
			continue // deleted meanwhile
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			b.log.Warn("approval record skipped", "id", id, "err", err)
			continue
		}
		out = append(out, a)
	}
	agent.SortApprovals(out)
	return out, nil
}

// DecideApproval implements agent.ApprovalBook: the decision record is
// created, so the first decider wins.
func (b *Approvals) DecideApproval(ctx context.Context, id string, d agent.Decision) (agent.Approval, error) {
	a, err := b.GetApproval(ctx, id)
	if err != nil {
		return a, err
	}
	if err := agent.ErrIfDecided(a); err != nil {
		return a, err
	}
	_, decision, _ := checkApprovalID(id)
	data, err := json.Marshal(d)
	if err != nil {
		return a, err
	}
	err = b.r.CreateRecord(ctx, decision, data)
	if errors.Is(err, driver.ErrRecordExists) {
		a, err := b.GetApproval(ctx, id)
		if err != nil {
			return a, err
		}
		if err := agent.ErrIfDecided(a); err != nil {
			return a, err
		}
		return a, fmt.Errorf("approval %s: %w", id, agent.ErrDecided) // and removed since
	}
	if err != nil {
		return a, fmt.Errorf("decide approval %s: %w", id, err)
	}
	a.Decision = &d
	return a, nil
}

// DeleteApproval implements agent.ApprovalBook: the question first, so
// that no one lists or decides an approval whose decision is gone.
func (b *Approvals) DeleteApproval(ctx context.Context, id string) error {
	question, decision, err := checkApprovalID(id)
	if err != nil {
		return err
	}
	for _, r := range []driver.Record{question, decision} {
		if err := b.r.DeleteRecord(ctx, r); err != nil {
			return fmt.Errorf("delete approval %s: %w", id, err)
		}
	}
	return nil
}
