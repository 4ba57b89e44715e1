package mailbox

import (
	"context"
	"time"
)

// watchDeadlines waits for the earliest of a set of due items: next
// returns it (ok false: none), when its due time on the clock now. When
// that time passes, fire gets the item; a poke on changed makes it look
// again. It returns when ctx ends.
func watchDeadlines[T any](ctx context.Context, now func() time.Time, changed <-chan struct{},
	next func() (T, bool), when func(T) time.Time, fire func(T)) {
	for {
		item, ok := next()
		var timer *time.Timer
		var due <-chan time.Time
		if ok {
			timer = time.NewTimer(max(0, when(item).Sub(now())))
			due = timer.C
		}
		select {
		case <-ctx.Done():
		case <-changed:
		case <-due:
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
