package agentloop

import (
	"context"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/agent"
)

// maxDetail caps the detail of an approval (a tool's arguments), in bytes.
const maxDetail = 500

// clipDetail shortens s to maxDetail bytes.
func clipDetail(s string) string {
	if len(s) <= maxDetail {
		return s
	}
	cut := maxDetail
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// inParens is " (s)", or "" for an empty s.
func inParens(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// localBook keeps approvals in this process only: what a loop without a
// shared store uses (no other process can list or decide them).
type localBook struct {
	mu sync.Mutex
	m  map[string]agent.Approval
}

var _ agent.ApprovalBook = (*localBook)(nil)

func newLocalBook() *localBook { return &localBook{m: map[string]agent.Approval{}} }

// PutApproval implements agent.ApprovalBook.
func (b *localBook) PutApproval(_ context.Context, a agent.Approval) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.m[a.ID]; ok {
		return fmt.Errorf("put approval %s: it exists already", a.ID)
	}
	b.m[a.ID] = a
	return nil
}

// GetApproval implements agent.ApprovalBook.
func (b *localBook) GetApproval(_ context.Context, id string) (agent.Approval, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.m[id]
	if !ok {
		return a, fmt.Errorf("approval %s: %w", id, agent.ErrNoApproval)
	}
	return a, nil
}

// ListApprovals implements agent.ApprovalBook (in no particular order).
func (b *localBook) ListApprovals(context.Context) ([]agent.Approval, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]agent.Approval, 0, len(b.m))
	for _, a := range b.m {
		out = append(out, a)
	}
	return out, nil
}

// DecideApproval implements agent.ApprovalBook.
func (b *localBook) DecideApproval(_ context.Context, id string, d agent.Decision) (agent.Approval, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a, ok := b.m[id]
	switch {
	case !ok:
		return a, fmt.Errorf("approval %s: %w", id, agent.ErrNoApproval)
	case a.Decision != nil:
		return a, fmt.Errorf("approval %s: %w", id, agent.ErrDecided)
	}
	a.Decision = &d
	b.m[id] = a
	return a, nil
}

// DeleteApproval implements agent.ApprovalBook.
func (b *localBook) DeleteApproval(_ context.Context, id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.m, id)
	return nil
}
