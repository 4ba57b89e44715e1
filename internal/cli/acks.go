package cli

import (
	"context"
	"slices"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// ackLog remembers the ids of the last messages the store recorded as
// handled (processed, quarantined or dropped as duplicates), so that recv
// can wait for the last message it printed to be settled before it stops
// the channel.
type ackLog struct {
	mu      sync.Mutex
	size    int
	ids     []string      // the last size ids, oldest first
	changed chan struct{} // closed and replaced on every new id
}

func newAckLog(size int) *ackLog {
	return &ackLog{size: size, changed: make(chan struct{})}
}

// observe is the store's Observer; it never blocks.
func (l *ackLog) observe(ev store.Event) {
	switch ev.Kind {
	case store.EventProcessed, store.EventRefused, store.EventQuarantined, store.EventDuplicate:
	default:
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.ids) == l.size {
		l.ids = l.ids[1:]
	}
	l.ids = append(l.ids, ev.MessageID)
	close(l.changed)
	l.changed = make(chan struct{})
}

// wait returns once id is recorded, or when ctx ends.
func (l *ackLog) wait(ctx context.Context, id string) bool {
	for {
		l.mu.Lock()
		seen, changed := slices.Contains(l.ids, id), l.changed
		l.mu.Unlock()
		if seen {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}
