package ledger

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestWatchFiresEarliestAndLooksAgainWhenPoked(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := clock.NewManual(start)
	var mu sync.Mutex
	items := []time.Time{start.Add(time.Hour)}
	changed := make(chan struct{}, 1)
	fired := make(chan time.Time, 4)
	next := func() (time.Time, bool) {
		mu.Lock()
		defer mu.Unlock()
		if len(items) == 0 {
			return time.Time{}, false
		}
		best := items[0]
		for _, it := range items {
			if it.Before(best) {
				best = it
			}
		}
		return best, true
	}
	fire := func(it time.Time) {
		mu.Lock()
		for i, x := range items {
			if x.Equal(it) {
				items = append(items[:i], items[i+1:]...)
				break
			}
		}
		mu.Unlock()
		fired <- it
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	armed := clk.Armed()
	go func() { Watch(ctx, clk, changed, next, func(t time.Time) time.Time { return t }, fire); close(done) }()
	testkit.Closed(t, armed, "the first wait")
	mu.Lock()
	items = append(items, start.Add(time.Minute))
	mu.Unlock()
	armed = clk.Armed()
	poke(changed)
	poke(changed) // a second poke never blocks
	testkit.Closed(t, armed, "the wait for the new earliest item")
	clk.Add(time.Minute)
	assert.Equal(t, start.Add(time.Minute), testkit.Recv(t, fired, "the earlier item"))
	clk.Add(time.Hour)
	assert.Equal(t, start.Add(time.Hour), testkit.Recv(t, fired, "the later item"))
	cancel()
	testkit.Closed(t, done, "Watch's return")
}

// jumpy is a manual clock that another goroutine moves on, once, just as
// Watch sets its timer: after Watch read the time, before the timer is
// registered.
type jumpy struct {
	*clock.Manual
	jump time.Duration
	once sync.Once
}

func (j *jumpy) NewTimer(d time.Duration) clock.Timer {
	j.once.Do(func() { j.Manual.Add(j.jump) })
	return j.Manual.NewTimer(d)
}

// An item that became due while Watch was setting its timer fires at
// once, rather than after the timer's delay counted from the moved clock.
func TestWatchFiresWhatTheClockPassedWhileItSetItsTimer(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := &jumpy{Manual: clock.NewManual(start), jump: 2 * time.Hour}
	item := start.Add(time.Hour)
	fired := make(chan time.Time, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var once sync.Once
	go Watch(ctx, clk, make(chan struct{}), func() (time.Time, bool) {
		gone := true
		once.Do(func() { gone = false })
		return item, !gone
	}, func(t time.Time) time.Time { return t }, func(it time.Time) { fired <- it })
	assert.Equal(t, item, testkit.Recv(t, fired, "the item the clock passed"))
}
