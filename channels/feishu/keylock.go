package feishu

import (
	"context"
	"sync"
)

// keyLock lets one goroutine at a time hold a key: an event Feishu
// delivers again while the first delivery is still being handled waits
// for it, and then finds the message journaled.
type keyLock struct {
	mu   sync.Mutex
	held map[string]chan struct{} // closed when the key is released
}

// lock takes key, waiting while another holds it, and returns the
// function that releases it; or ctx's error.
func (k *keyLock) lock(ctx context.Context, key string) (unlock func(), err error) {
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
