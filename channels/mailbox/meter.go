package mailbox

import (
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Meter is told what the channel does with messages; metrics hang on it
// (package observe/metrics adapts it to Prometheus). Its methods are
// called synchronously on the channel's own paths and must not block.
type Meter interface {
	// Event is called with each event of the store the channel opened
	// (store.Event: claimed, processed, refused, quarantined, duplicate,
	// ...) and each one the channel records (delivered, swept, overdue).
	Event(ev store.Event)
	// Sent is called with each message the channel stored in a
	// recipient's inbox.
	Sent(m *envelope.Message)
	// Delivered is called with each message handed to the agent
	// (published on the bus) at time at; redelivered is set when it may
	// have been handed out before (a claim recovered after a crash).
	Delivered(m *envelope.Message, redelivered bool, at time.Time)
}

// SetMeter installs m (nil: none). It takes effect for the store's events
// when the channel opens its store in Start, so call it before.
func (c *Channel) SetMeter(m Meter) {
	c.mu.Lock()
	c.meter = m
	c.mu.Unlock()
}

// meterOf returns the installed Meter, nil when there is none.
func (c *Channel) meterOf() Meter {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.meter
}

// storeObserver is what the store the channel opens reports its events
// to: the Observer of Options, then the Meter.
func (c *Channel) storeObserver() store.Observer {
	obs, m := c.observer, c.meter
	switch {
	case m == nil:
		return obs
	case obs == nil:
		return m.Event
	}
	return func(ev store.Event) {
		obs(ev)
		m.Event(ev)
	}
}

// TaskCounts says how many tasks a channel has in hand.
type TaskCounts struct {
	// Working is how many tasks the agent accepted and has not finished.
	Working int
	// Delegated counts the tasks the agent delegated that have not ended,
	// by the last state their assignee reported (pending until it
	// answers).
	Delegated map[envelope.TaskState]int
}

// Tasks returns the tasks the channel has in hand now; zero before Start.
func (c *Channel) Tasks() TaskCounts {
	out := TaskCounts{Working: c.active.Len(), Delegated: map[envelope.TaskState]int{}}
	c.mu.Lock()
	sent := c.sent
	c.mu.Unlock()
	if sent == nil {
		return out
	}
	for _, t := range sent.List() {
		state := t.State
		if state == "" {
			state = envelope.StatePending
		}
		out.Delegated[state]++
	}
	return out
}
