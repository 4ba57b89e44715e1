package storetest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// WaitLimit bounds every wait of the suite; reaching it fails the test.
const WaitLimit = 20 * time.Second

// NewMessage returns a valid message of type "message" from one agent to
// another with one text part and a fresh id, stamped and numbered in the
// order mailbox.Compose does it (time first, then id).
func NewMessage(from, to, text string) *envelope.Message {
	now := envelope.NewTime(time.Now())
	return &envelope.Message{
		ID: envelope.NewID(), From: from, To: to, Timestamp: now,
		Type: envelope.TypeMessage, TTL: envelope.DefaultTTL - 1, Trace: []string{from},
		Content:  envelope.Content{Parts: []envelope.Part{envelope.TextPart(text)}},
		Metadata: map[string]any{},
	}
}

// waitCtx returns a context that ends after WaitLimit or with the test.
func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), WaitLimit)
	t.Cleanup(cancel)
	return ctx
}

// deliver delivers each message or fails the test.
func deliver(t *testing.T, be store.Backend, msgs ...*envelope.Message) {
	t.Helper()
	for _, m := range msgs {
		require.NoError(t, be.Deliver(waitCtx(t), m), "deliver %s", m.ID)
	}
}

// openInbox opens agent's inbox and closes it when the test ends.
func openInbox(t *testing.T, be store.Backend, agent string) store.Inbox {
	t.Helper()
	in, err := be.OpenInbox(waitCtx(t), agent)
	require.NoError(t, err, "open inbox of %q", agent)
	t.Cleanup(func() { in.Close() })
	return in
}

// next returns the next delivery, waiting up to WaitLimit.
func next(t *testing.T, in store.Inbox) *store.Delivery {
	t.Helper()
	d, err := in.Next(waitCtx(t))
	require.NoError(t, err, "next delivery")
	require.NotNil(t, d)
	require.NotNil(t, d.Message)
	return d
}

// ack acknowledges d or fails the test.
func ack(t *testing.T, in store.Inbox, d *store.Delivery) {
	t.Helper()
	require.NoError(t, in.Ack(waitCtx(t), d), "ack %s", d.Message.ID)
}

// expectNext takes the next delivery, checks that it is message id and
// acknowledges it. Delivering a fresh message and expecting it next is how
// the suite shows that nothing else was pending, without waiting for
// something not to happen.
func expectNext(t *testing.T, in store.Inbox, id string) *store.Delivery {
	t.Helper()
	d := next(t, in)
	require.Equal(t, id, d.Message.ID, "next message: %q from %s", d.Message.Text(), d.Message.From)
	ack(t, in, d)
	return d
}

// drain takes n deliveries, acknowledging each, and returns them.
func drain(t *testing.T, in store.Inbox, n int) []*envelope.Message {
	t.Helper()
	out := make([]*envelope.Message, 0, n)
	for range n {
		d := next(t, in)
		ack(t, in, d)
		out = append(out, d.Message)
	}
	return out
}

// Events records a backend's events and lets a test wait for one.
type Events struct {
	mu      sync.Mutex
	events  []store.Event
	changed chan struct{} // closed and replaced on every event
}

// NewEvents returns an empty recorder.
func NewEvents() *Events { return &Events{changed: make(chan struct{})} }

// Observe is the store.Observer that records.
func (e *Events) Observe(ev store.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.events = append(e.events, ev)
	close(e.changed)
	e.changed = make(chan struct{})
}

// WaitFor returns the first event of kind that match accepts (nil: any),
// waiting up to WaitLimit.
func (e *Events) WaitFor(t *testing.T, kind store.EventKind, match func(store.Event) bool) store.Event {
	t.Helper()
	deadline := time.NewTimer(WaitLimit)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		for _, ev := range e.events {
			if ev.Kind == kind && (match == nil || match(ev)) {
				e.mu.Unlock()
				return ev
			}
		}
		changed := e.changed
		e.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("no %s event within %s; events: %s", kind, WaitLimit, e)
		}
	}
}

// WaitCount waits up to WaitLimit until n events of kind were recorded.
func (e *Events) WaitCount(t *testing.T, kind store.EventKind, n int) {
	t.Helper()
	deadline := time.NewTimer(WaitLimit)
	defer deadline.Stop()
	for {
		e.mu.Lock()
		changed := e.changed
		e.mu.Unlock()
		if e.Count(kind) >= n {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("%d %s events within %s, want %d; events: %s", e.Count(kind), kind, WaitLimit, n, e)
		}
	}
}

// Count returns how many events of kind were recorded.
func (e *Events) Count(kind store.EventKind) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, ev := range e.events {
		if ev.Kind == kind {
			n++
		}
	}
	return n
}

// String lists the recorded events.
func (e *Events) String() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return fmt.Sprintf("%+v", e.events)
}
