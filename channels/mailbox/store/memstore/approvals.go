package memstore

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/switchboard-dev/switchboard/agent"
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
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	if _, ok := s.hub.approvals[a.ID]; ok {
		return fmt.Errorf("put approval %s: it exists already", a.ID)
	}
	s.hub.approvals[a.ID] = a
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
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return s.approvalLocked(id)
}

func (s *Store) approvalLocked(id string) (agent.Approval, error) {
	a, ok := s.hub.approvals[id]
	if !ok {
		return a, fmt.Errorf("approval %s: %w", id, agent.ErrNoApproval)
	}
	if a.Decision != nil {
		d := *a.Decision
		a.Decision = &d
	}
	return a, nil
}

// ListApprovals implements store.ApprovalBook.
func (s *Store) ListApprovals(ctx context.Context) ([]agent.Approval, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	out := []agent.Approval{}
	for _, id := range slices.Sorted(maps.Keys(s.hub.approvals)) {
		a, _ := s.approvalLocked(id)
		out = append(out, a)
	}
	agent.SortApprovals(out)
	return out, nil
}

// DecideApproval implements store.ApprovalBook.
func (s *Store) DecideApproval(ctx context.Context, id string, d agent.Decision) (agent.Approval, error) {
	if err := agent.CheckApprovalID(id); err != nil {
		return agent.Approval{}, err
	}
	if err := s.checkOpen(ctx); err != nil {
		return agent.Approval{}, err
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	a, err := s.approvalLocked(id)
	if err != nil {
		return a, err
	}
	if err := agent.ErrIfDecided(a); err != nil {
		return a, err
	}
	a.Decision = &d
	s.hub.approvals[id] = a
	return s.approvalLocked(id)
}

// DeleteApproval implements store.ApprovalBook.
func (s *Store) DeleteApproval(ctx context.Context, id string) error {
	if err := agent.CheckApprovalID(id); err != nil {
		return err
	}
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	delete(s.hub.approvals, id)
	return nil
}
