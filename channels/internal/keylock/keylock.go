package keylock

import (
	"context"
	"sync"
)

// Set lets one goroutine at a time hold a key. The zero Set is ready.
type Set struct {
	mu   sync.Mutex
	held map[string]chan struct{} // closed when the key is released
}

// Lock takes key, waiting while another holds it, and returns the
// function that releases it; or ctx's error.
func (k *Set) Lock(ctx context.Context, key string) (unlock func(), err error) {
	for {
		k.mu.Lock()
		if k.held == nil {
			k.held = map[string]chan struct{}{}
		}
		busy, ok := k.held[key]
		if !ok {
			released := make(chan struct{})
			k.held[key] = released
			k.mu.Unlock()
			return func() {
				k.mu.Lock()
				delete(k.held, key)
				k.mu.Unlock()
				close(released)
			}, nil
		}
		k.mu.Unlock()
		select {
		case <-busy:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
