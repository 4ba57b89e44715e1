package memstore

import (
	"context"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.Nudger = (*Store)(nil)

// nudges are the listeners of a hub's nudges, by agent and record key.
type nudges struct {
	mu   sync.Mutex
	next int
	m    map[nudgeKey]map[int]*listener
}

type nudgeKey struct{ agent, key string }

// listener is one ListenNudges: its calls run one at a time on its own
// goroutine, pending coalescing the nudges that come while fn runs.
type listener struct {
	pending chan struct{}
	done    chan struct{}
	wg      sync.WaitGroup
}

// Nudge implements driver.Nudger: every listener of agent's key on the
// hub is nudged, in this process only.
func (s *Store) Nudge(ctx context.Context, agent, key string) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	if err := envelope.ValidateAgentID(agent); err != nil {
		return err
	}
	n := &s.hub.nudges
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, l := range n.m[nudgeKey{agent, key}] {
		select {
		case l.pending <- struct{}{}:
		default: // one is pending already
		}
	}
	return nil
}

// ListenNudges implements driver.Nudger. A memory store has no connection
// to lose: fn is called after nudges only.
func (s *Store) ListenNudges(ctx context.Context, agent, key string, fn func()) (stop func(), err error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	if err := envelope.ValidateAgentID(agent); err != nil {
		return nil, err
	}
	l := &listener{pending: make(chan struct{}, 1), done: make(chan struct{})}
	n := &s.hub.nudges
	k := nudgeKey{agent, key}
	n.mu.Lock()
	if n.m == nil {
		n.m = map[nudgeKey]map[int]*listener{}
	}
	if n.m[k] == nil {
		n.m[k] = map[int]*listener{}
	}
	id := n.next
	n.next++
	n.m[k][id] = l
	n.mu.Unlock()
	l.wg.Go(func() {
		for {
			select {
			case <-l.done:
				return
			case <-l.pending:
				fn()
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			n.mu.Lock()
			delete(n.m[k], id)
			if len(n.m[k]) == 0 {
				delete(n.m, k)
			}
			n.mu.Unlock()
			close(l.done)
			l.wg.Wait()
		})
	}, nil
}
