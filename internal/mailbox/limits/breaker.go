package limits

import (
	"fmt"
	"sync"
	"time"
)

// breaker is the circuit breaker of one recipient: the times of its
// recent failures, and until when it is open.
type breaker struct {
	failures []time.Time
	until    time.Time // open while now is before it
	reason   string    // the failure that opened it
}

// breakers holds the breaker of every recipient that failed lately.
type breakers struct {
	cfg Breaker
	mu  sync.Mutex
	m   map[string]*breaker
}

func newBreakers(cfg Breaker) *breakers { return &breakers{cfg: cfg, m: map[string]*breaker{}} }

// open returns until when the breaker of `to` is open, and why; zero
// when it is closed.
func (bs *breakers) open(to string, now time.Time) (time.Time, string) {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b, ok := bs.m[to]
	if !ok || !now.Before(b.until) {
		return time.Time{}, ""
	}
	return b.until, b.reason
}

// fail counts one failure of `to` at now and reports whether it opened
// the breaker. Failures older than the window are forgotten; an open
// breaker counts nothing more (it closes, counting afresh, after the
// cool-down).
func (bs *breakers) fail(to, why string, now time.Time) bool {
	if bs.cfg.Off() {
		return false
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	b, ok := bs.m[to]
	if !ok {
		b = &breaker{}
		bs.m[to] = b
	}
	if now.Before(b.until) {
		return false
	}
	cutoff := now.Add(-seconds(bs.cfg.Window))
	kept := b.failures[:0]
	for _, t := range b.failures {
		if t.After(cutoff) {
			kept = append(kept, t)
		}
	}
	b.failures = append(kept, now)
	if len(b.failures) < bs.cfg.Failures {
		return false
	}
	b.failures = nil
	b.until = now.Add(seconds(bs.cfg.CoolDown))
	b.reason = fmt.Sprintf("%d failures within %gs, the last: %s", bs.cfg.Failures, bs.cfg.Window, why)
	return true
}

// snapshot returns the breakers open at now, by recipient, and forgets
// those with nothing left to remember.
func (bs *breakers) snapshot(now time.Time) map[string]Open {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	out := map[string]Open{}
	cutoff := now.Add(-seconds(bs.cfg.Window))
	for to, b := range bs.m {
		if now.Before(b.until) {
			out[to] = Open{To: to, Until: b.until, Reason: b.reason}
			continue
		}
		if len(b.failures) == 0 || !b.failures[len(b.failures)-1].After(cutoff) {
			delete(bs.m, to)
		}
	}
	return out
}
