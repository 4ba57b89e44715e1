package platformfake

import (
	"context"
	"sync"
)

// Monitor is a mutex whose holder can wake the goroutines waiting for the
// state it guards to change (a sync.Cond whose waits end with a context).
// The zero Monitor is ready.
type Monitor struct {
	mu      sync.Mutex
	changed chan struct{} // closed and replaced at every Notify
}

// Lock locks the state.
func (m *Monitor) Lock() { m.mu.Lock() }

// Unlock unlocks the state.
func (m *Monitor) Unlock() { m.mu.Unlock() }

// Notify wakes the waiters, which look at the state again; m is held.
func (m *Monitor) Notify() {
	if m.changed != nil {
		close(m.changed)
	}
	m.changed = make(chan struct{})
}

// Wait waits until cond (called with m held) holds, or ctx ends.
func (m *Monitor) Wait(ctx context.Context, cond func() bool) error {
	for {
		m.mu.Lock()
		ok := cond()
		if m.changed == nil {
			m.changed = make(chan struct{})
		}
		changed := m.changed
		m.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
