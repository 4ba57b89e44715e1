package agentloop_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/switchboard-dev/switchboard/agent"
)

// memBook is an approval book that other "processes" of a test share:
// what a store keeps, in memory.
type memBook struct {
	mu sync.Mutex
	m  map[string]agent.Approval
}

var _ agent.ApprovalBook = (*memBook)(nil)

func newMemBook() *memBook { return &memBook{m: map[string]agent.Approval{}} }

func (b *memBook) PutApproval(_ context.Context, a agent.Approval) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.m[a.ID]; ok {
		return fmt.Errorf("approval %s exists", a.ID)
	}
	b.m[a.ID] = a
	return nil
}

func (b *memBook) GetApproval(_ context.Context, id string) (agent.Approval, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.m[id]
	if !ok {
		return a, fmt.Errorf("approval %s: %w", id, agent.ErrNoApproval)
	}
	return a, nil
}

func (b *memBook) ListApprovals(context.Context) ([]agent.Approval, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]agent.Approval, 0, len(b.m))
	for _, a := range b.m {
		out = append(out, a)
	}
	agent.SortApprovals(out)
	return out, nil
}

func (b *memBook) DecideApproval(_ context.Context, id string, d agent.Decision) (agent.Approval, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.m[id]
	if !ok {
		return a, fmt.Errorf("approval %s: %w", id, agent.ErrNoApproval)
	}
	if err := agent.ErrIfDecided(a); err != nil {
		return a, err
	}
	a.Decision = &d
	b.m[id] = a
	return a, nil
}

func (b *memBook) DeleteApproval(_ context.Context, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, id)
	return nil
}
