package testkit

import (
	"testing"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Events records a mailbox store's events (its Observe is a
// store.Observer) and lets a test wait for one.
type Events struct{ *Log[store.Event] }

// NewEvents returns an empty recorder.
func NewEvents() *Events { return &Events{NewLog[store.Event]()} }

// Observe is the store.Observer that records.
func (e *Events) Observe(ev store.Event) { e.Add(ev) }

func ofKind(kind store.EventKind, match func(store.Event) bool) func(store.Event) bool {
	return func(ev store.Event) bool { return ev.Kind == kind && (match == nil || match(ev)) }
}

// WaitKind returns the first event of kind that match accepts (nil: any),
// waiting up to WaitLimit.
func (e *Events) WaitKind(t testing.TB, kind store.EventKind, match func(store.Event) bool) store.Event {
	t.Helper()
	return e.WaitFor(t, string(kind)+" event", ofKind(kind, match))
}

// TakeKind is WaitKind for an event no earlier TakeKind returned.
func (e *Events) TakeKind(t testing.TB, kind store.EventKind, match func(store.Event) bool) store.Event {
	t.Helper()
	return e.Take(t, string(kind)+" event", ofKind(kind, match))
}

// WaitKindCount waits until n events of kind were recorded, failing when
// WaitLimit passes without one more (see Log.WaitCount).
func (e *Events) WaitKindCount(t testing.TB, kind store.EventKind, n int) {
	t.Helper()
	e.WaitCount(t, string(kind)+" events", n, ofKind(kind, nil))
}

// CountKind returns how many events of kind were recorded.
func (e *Events) CountKind(kind store.EventKind) int { return e.Count(ofKind(kind, nil)) }

// ByID matches the events about message id.
func ByID(id string) func(store.Event) bool {
	return func(ev store.Event) bool { return ev.MessageID == id }
}
