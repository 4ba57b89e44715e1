package console

import (
	"context"
	"sync"
	"time"
)

// DefaultMinRefresh is Config.MinRefresh's default.
const DefaultMinRefresh = time.Second

// refreshCost is how many times the last build's duration the pages wait
// at least before the next: building takes at most a quarter of a core,
// however fast messages arrive, up to maxRefresh.
const refreshCost = 3

// maxRefresh bounds the gap between two builds however long one takes.
const maxRefresh = 10 * time.Second

// snapshot is the state the open pages share. A page that asks for the
// state gets one whose build began after it asked (so it shows what the
// store's watch does not announce: a message set aside, an audit entry),
// built once the gap since the last build passed (MinRefresh, or
// refreshCost times as long as the last build took, when that is
// longer), or at once when the operator acts; the pages that ask
// meanwhile share it. Messages arriving five a second thus cost one
// build per gap, not five a second per page.
type snapshot struct {
	mu    sync.Mutex // held while building: one build at a time
	st    *State
	began time.Time // when the build of st began
	built time.Time // when it ended
	took  time.Duration
}

// gap is how long after the last build the next one may start.
func (s *snapshot) gap(minimum time.Duration) time.Duration {
	return max(minimum, min(refreshCost*s.took, maxRefresh))
}

// shared returns the state to serve a page that asked for it now.
func (c *Console) shared(ctx context.Context) (*State, error) {
	asked := time.Now()
	s := &c.snap
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil && !s.began.Before(asked) {
		return s.st, nil // built for a page that asked after this one
	}
	gen, urgent, acted := c.hub.generation()
	if wait := s.gap(c.cfg.MinRefresh) - time.Since(s.built); s.st != nil && !urgent && wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-acted: // the operator acted: the pages show it at once
			t.Stop()
		case <-t.C:
		}
		gen, _, _ = c.hub.generation()
	}
	c.hub.settle(gen)
	began := time.Now()
	st, err := c.State(ctx)
	if err != nil {
		return nil, err
	}
	if s.st != nil { // the first build reads every message: it says nothing of the next
		s.took = time.Since(began)
	}
	s.st, s.began, s.built = st, began, time.Now()
	return st, nil
}
