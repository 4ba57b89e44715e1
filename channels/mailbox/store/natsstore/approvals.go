package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/nats-io/nats.go/jetstream"
)

// The keys of an approval in the state bucket: _approval.<id> holds the
// question, written once by the agent; _decision.<id> the answer, created
// by whoever decides first (Create fails if the key exists). No agent's
// state key can start with '_' (an agent id cannot).
const (
	approvalKeyPrefix = "_approval."
	decisionKeyPrefix = "_decision."
)

var _ agent.ApprovalBook = (*Store)(nil)

// PutApproval implements store.ApprovalBook.
func (s *Store) PutApproval(ctx context.Context, a agent.Approval) error {
	if err := agent.CheckApprovalID(a.ID); err != nil {
		return err
	}
	if a.Decision != nil {
		return fmt.Errorf("put approval %s: a new approval has no decision", a.ID)
	}
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	data, err := json.Marshal(a)
	if err != nil {
		return err
	}
	if _, err := s.state.Create(ctx, approvalKeyPrefix+a.ID, data); err != nil {
		return fmt.Errorf("put approval %s: %w", a.ID, err)
	}
	return nil
}

// GetApproval implements store.ApprovalBook.
func (s *Store) GetApproval(ctx context.Context, id string) (agent.Approval, error) {
	if err := agent.CheckApprovalID(id); err != nil {
		return agent.Approval{}, err
	}
	if err := s.checkOpen(ctx); err != nil {
		return agent.Approval{}, err
	}
	var a agent.Approval
	e, err := s.state.Get(ctx, approvalKeyPrefix+id)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return a, fmt.Errorf("approval %s: %w", id, agent.ErrNoApproval)
	}
	if err != nil {
		return a, fmt.Errorf("approval %s: %w", id, err)
	}
	if err := json.Unmarshal(e.Value(), &a); err != nil {
		return a, fmt.Errorf("approval %s: %w", id, err)
	}
	a.ID, a.Decision = id, nil
	e, err = s.state.Get(ctx, decisionKeyPrefix+id)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
	case err != nil:
		return a, fmt.Errorf("approval %s: %w", id, err)
	default:
		var d agent.Decision
		if err := json.Unmarshal(e.Value(), &d); err != nil {
			return a, fmt.Errorf("approval %s: decision: %w", id, err)
		}
		a.Decision = &d
	}
	if err := a.CheckRecord(); err != nil {
		return a, fmt.Errorf("approval %s: %w", id, err)
	}
	return a, nil
}

// ListApprovals implements store.ApprovalBook. Records that cannot be read
// are skipped with a warning.
func (s *Store) ListApprovals(ctx context.Context) ([]agent.Approval, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	ids, err := s.approvalIDs(ctx)
	if err != nil {
		return nil, err
	}
	out := []agent.Approval{}
	for _, id := range ids {
		a, err := s.GetApproval(ctx, id)
		if errors.Is(err, agent.ErrNoApproval) {
			continue // deleted meanwhile
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			s.opts.Logger.Warn("approval record skipped", "id", id, "err", err)
			continue
		}
		out = append(out, a)
	}
	agent.SortApprovals(out)
	return out, nil
}

// DecideApproval implements store.ApprovalBook: the decision key is
// created, so the first decider wins.
func (s *Store) DecideApproval(ctx context.Context, id string, d agent.Decision) (agent.Approval, error) {
	a, err := s.GetApproval(ctx, id)
	if err != nil {
		return a, err
	}
	if err := agent.ErrIfDecided(a); err != nil {
		return a, err
	}
	data, err := json.Marshal(d)
	if err != nil {
		return a, err
	}
	_, err = s.state.Create(ctx, decisionKeyPrefix+id, data)
	if errors.Is(err, jetstream.ErrKeyExists) {
		a, err := s.GetApproval(ctx, id)
		if err != nil {
			return a, err
		}
		if a.Decision == nil {
			return a, fmt.Errorf("approval %s: %w", id, agent.ErrDecided)
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

// DeleteApproval implements store.ApprovalBook: both keys are purged (no
// history is kept of them), the question first.
func (s *Store) DeleteApproval(ctx context.Context, id string) error {
	if err := agent.CheckApprovalID(id); err != nil {
		return err
	}
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	for _, k := range []string{approvalKeyPrefix + id, decisionKeyPrefix + id} {
		if err := s.state.Purge(ctx, k); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
			return fmt.Errorf("delete approval %s: %w", id, err)
		}
	}
	return nil
}

// approvalIDs returns the ids of the approvals in the state bucket: a
// watch of the question keys, read up to the end of what is stored.
func (s *Store) approvalIDs(ctx context.Context) ([]string, error) {
	w, err := s.state.Watch(ctx, approvalKeyPrefix+"*", jetstream.IgnoreDeletes(), jetstream.MetaOnly())
	if err != nil {
		return nil, fmt.Errorf("approvals: %w", err)
	}
	defer w.Stop()
	var ids []string
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return nil, fmt.Errorf("approvals: the listing ended early")
			}
			if e == nil { // all stored keys were seen
				return ids, nil
			}
			ids = append(ids, strings.TrimPrefix(e.Key(), approvalKeyPrefix))
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
