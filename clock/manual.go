package clock

import (
	"slices"
	"sync"
	"time"
)

// Manual is a Clock that moves only when told to. Add and Set fire every
// timer, AfterFunc and ticker whose time has come, earliest first, with
// the clock reading the time each one fires at; a ticker that missed
// several ticks fires once, at the latest one due. It is safe for
// concurrent use.
type Manual struct {
	mu      sync.Mutex
	now     time.Time
	waiters []*waiter
	seq     int
	armed   chan struct{} // closed and replaced whenever a waiter is added
}

// NewManual returns a Manual clock reading start.
func NewManual(start time.Time) *Manual {
	return &Manual{now: start, armed: make(chan struct{})}
}

// waiter is one timer, AfterFunc or ticker of a Manual clock.
type waiter struct {
	m      *Manual
	when   time.Time
	every  time.Duration // > 0 for a ticker
	fn     func()        // AfterFunc
	ch     chan time.Time
	seq    int // creation order, to break ties
	active bool
}

// Now implements Clock.
func (m *Manual) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

// NewTimer implements Clock.
func (m *Manual) NewTimer(d time.Duration) Timer {
	return m.add(&waiter{ch: make(chan time.Time, 1)}, d)
}

// AfterFunc implements Clock.
func (m *Manual) AfterFunc(d time.Duration, f func()) Timer {
	return m.add(&waiter{fn: f}, d)
}

// NewTicker implements Clock. It panics for d <= 0, as time.NewTicker does.
func (m *Manual) NewTicker(d time.Duration) Ticker {
	if d <= 0 {
		panic("clock: non-positive interval for NewTicker")
	}
	return manualTicker{m.add(&waiter{ch: make(chan time.Time, 1), every: d}, d)}
}

// manualTicker is a ticker of a Manual clock.
type manualTicker struct{ w *waiter }

func (t manualTicker) C() <-chan time.Time { return t.w.ch }
func (t manualTicker) Stop()               { t.w.Stop() }

func (m *Manual) add(w *waiter, d time.Duration) *waiter {
	m.mu.Lock()
	w.m, w.when, w.active = m, m.now.Add(d), true
	m.seq++
	w.seq = m.seq
	m.waiters = append(m.waiters, w)
	close(m.armed)
	m.armed = make(chan struct{})
	m.mu.Unlock()
	if d <= 0 {
		m.Add(0)
	}
	return w
}

// Add moves the clock forward by d (d < 0 is treated as 0) and fires what
// is due.
func (m *Manual) Add(d time.Duration) {
	m.mu.Lock()
	target := m.now.Add(max(d, 0))
	m.mu.Unlock()
	m.advance(target)
}

// Set moves the clock to t and fires what is due. Moving it back fires
// nothing.
func (m *Manual) Set(t time.Time) { m.advance(t) }

// advance fires the due waiters one at a time, in time order, with the
// clock reading each one's time as it fires, then settles on target.
func (m *Manual) advance(target time.Time) {
	for {
		m.mu.Lock()
		w := m.nextDueLocked(target)
		if w == nil {
			m.now = target
			m.mu.Unlock()
			return
		}
		if w.when.After(m.now) {
			m.now = w.when
		}
		fireAt := m.now
		if w.every > 0 {
			// A ticker that missed several ticks fires once, at the latest
			// one due (time.Ticker also drops the ticks nobody took).
			for !w.when.Add(w.every).After(target) {
				w.when = w.when.Add(w.every)
			}
			if w.when.After(m.now) {
				m.now = w.when
			}
			fireAt = m.now
			w.when = w.when.Add(w.every)
		} else {
			w.active = false
			m.removeLocked(w)
		}
		m.mu.Unlock()
		w.fire(fireAt)
	}
}

func (m *Manual) nextDueLocked(target time.Time) *waiter {
	var best *waiter
	for _, w := range m.waiters {
		if !w.active || w.when.After(target) {
			continue
		}
		if best == nil || w.when.Before(best.when) || w.when.Equal(best.when) && w.seq < best.seq {
			best = w
		}
	}
	return best
}

func (m *Manual) removeLocked(w *waiter) {
	m.waiters = slices.DeleteFunc(m.waiters, func(x *waiter) bool { return x == w })
}

// Waiters returns how many timers, AfterFuncs and tickers are pending.
func (m *Manual) Waiters() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.waiters)
}

// Armed returns a channel closed when the next timer, AfterFunc or ticker
// is created, so a test can wait until the code under test is waiting on
// the clock before it moves it.
func (m *Manual) Armed() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.armed
}

func (w *waiter) fire(at time.Time) {
	if w.fn != nil {
		go w.fn()
		return
	}
	select {
	case w.ch <- at:
	default: // a tick not taken yet: drop this one, as time.Ticker does
	}
}

func (w *waiter) C() <-chan time.Time { return w.ch }

func (w *waiter) Stop() bool {
	w.m.mu.Lock()
	defer w.m.mu.Unlock()
	was := w.active
	w.active = false
	w.m.removeLocked(w)
	return was
}

func (w *waiter) Reset(d time.Duration) bool {
	was := w.Stop()
	w.m.mu.Lock()
	w.when, w.active = w.m.now.Add(d), true
	w.m.waiters = append(w.m.waiters, w)
	close(w.m.armed)
	w.m.armed = make(chan struct{})
	w.m.mu.Unlock()
	if d <= 0 {
		w.m.Add(0)
	}
	return was
}
