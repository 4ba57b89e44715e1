package mailbox

import (
	"sync"

	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// recentMessages remembers the last messages this agent received, so that
// an answer can be recognised as a reply (and keep its thread and trace)
// even when the caller did not carry the inbound metadata along. It holds
// at most size entries, forgetting the oldest first.
type recentMessages struct {
	mu    sync.Mutex
	size  int
	byID  map[string]meta.Meta
	order []string // ring of ids, oldest at next
	next  int
}

func newRecentMessages(size int) *recentMessages {
	return &recentMessages{size: size, byID: make(map[string]meta.Meta, size)}
}

func (r *recentMessages) add(m meta.Meta) {
	m.Parts = nil // replies need the routing fields only; parts can be up to maxMessageBytes each
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byID[m.MessageID]; ok {
		r.byID[m.MessageID] = m
		return
	}
	if len(r.order) < r.size {
		r.order = append(r.order, m.MessageID)
	} else {
		delete(r.byID, r.order[r.next])
		r.order[r.next] = m.MessageID
		r.next = (r.next + 1) % r.size
	}
	r.byID[m.MessageID] = m
}

func (r *recentMessages) get(id string) (meta.Meta, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.byID[id]
	return m, ok
}
