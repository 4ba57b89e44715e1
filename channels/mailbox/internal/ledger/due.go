package ledger

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/clock"
)

// Watch waits for the earliest of a set of due items: next returns it (ok
// false: none), when its due time on clk. When that time passes, fire gets
// the item; a poke on changed makes it look again. It returns when ctx
// ends.
func Watch[T any](ctx context.Context, clk clock.Clock, changed <-chan struct{},
	next func() (T, bool), when func(T) time.Time, fire func(T)) {
	for {
		item, ok := next()
		var timer clock.Timer
		var fired <-chan time.Time
		if ok {
			at := when(item)
			timer = clk.NewTimer(max(0, at.Sub(clk.Now())))
			fired = timer.C()
			if !clk.Now().Before(at) {
				// Due already: the clock may have moved on between reading
				// it and setting the timer (a manual clock moved by
				// another goroutine), which then waits that much too long.
				now := make(chan time.Time, 1)
				now <- at
				fired = now
			}
		}
		select {
		case <-ctx.Done():
		case <-changed:
		case <-fired:
			fire(item)
		}
		if timer != nil {
			timer.Stop()
		}
		if ctx.Err() != nil {
			return
		}
	}
}

// poke signals ch (a channel with a buffer of one) without blocking.
func poke(ch chan<- struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
