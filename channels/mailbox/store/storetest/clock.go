package storetest

import (
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Clock is a clock a test moves by hand, for a channel's Options.Now.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a Clock that reads start until it is moved.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

// byID matches the events about message id, for Events.WaitFor.
func byID(id string) func(store.Event) bool {
	return func(e store.Event) bool { return e.MessageID == id }
}
