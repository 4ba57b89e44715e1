package storetest

import (
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// clock is a clock a test moves by hand, for a channel's Options.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock(start time.Time) *clock { return &clock{now: start} }

// Now returns the clock's time.
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock by d.
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// byID matches the events about message id, for Events.WaitFor.
func byID(id string) func(store.Event) bool {
	return func(e store.Event) bool { return e.MessageID == id }
}
