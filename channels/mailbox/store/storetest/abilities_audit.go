package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// testRecord: Record reports the event to the backend's Observer as it
// was given, with a time when it had none; a closed backend refuses it
// with ErrClosed.
func (s *suite) testRecord(t *testing.T) {
	ev := testkit.NewEvents()
	be := s.world(t).open(t, ev.Observe)
	Need(t, s.feat.Audit(), be)
	want := store.Event{Kind: store.EventDelivered, Agent: "bob", MessageID: "m-1", From: "alice",
		ThreadID: "th-1", TaskID: "task-1", Reason: "handed to the agent"}
	require.NoError(t, be.Record(testkit.Ctx(t), want))
	got := ev.WaitKind(t, store.EventDelivered, func(e store.Event) bool { return e.MessageID == "m-1" })
	assert.False(t, got.Time.IsZero(), "stamped with a time")
	got.Time = time.Time{}
	assert.Equal(t, want, got)

	require.NoError(t, be.Close())
	assert.ErrorIs(t, be.Record(testkit.Ctx(t), want), store.ErrClosed)
}

// AuditReader is what reads an audit log back: a *store.Store, or a
// backend itself (driver.AuditReader) in a backend's own tests.
type AuditReader interface {
	ReadAudit(ctx context.Context, fn func(store.Event) bool) error
}

// AuditOf reads the whole audit log of r.
func AuditOf(t *testing.T, r AuditReader) []store.Event {
	t.Helper()
	var out []store.Event
	require.NoError(t, r.ReadAudit(testkit.Ctx(t), func(e store.Event) bool { out = append(out, e); return true }))
	return out
}

// auditPoll is how often waitAudit reads the log again.
const auditPoll = 20 * time.Millisecond

// WaitAudit reads the audit log of r until the entries about message id
// include every kind of want (a backend may store entries a little after
// the events, from another process), or until testkit.WaitLimit passes, and
// returns the last log read. The caller checks the order.
func WaitAudit(t *testing.T, r AuditReader, id string, want ...store.EventKind) []store.Event {
	t.Helper()
	deadline := time.NewTimer(testkit.WaitLimit)
	defer deadline.Stop()
	tick := time.NewTicker(auditPoll)
	defer tick.Stop()
	for {
		log := AuditOf(t, r)
		if hasKinds(KindsOf(log, id), want) {
			return log
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Errorf("audit entries of %s within %s: %v, want %v", id, testkit.WaitLimit, KindsOf(log, id), want)
			return log
		}
	}
}

// hasKinds reports whether got holds every kind of want.
func hasKinds(got, want []store.EventKind) bool {
	for _, k := range want {
		if !slices.Contains(got, k) {
			return false
		}
	}
	return true
}

// KindsOf returns the kinds of the entries about message id, in order.
func KindsOf(log []store.Event, id string) []store.EventKind {
	var out []store.EventKind
	for _, e := range log {
		if e.MessageID == id {
			out = append(out, e.Kind)
		}
	}
	return out
}

// testReadAudit: another process reads back, oldest first, the store's
// own events of a message (sent, claimed, processed, each naming the
// recipient, the sender, the thread and the task) and, in its place among
// them, what Record recorded, as it was given; within testkit.WaitLimit, as a
// backend may write its log a little after the events. A fresh store's
// log is empty; ReadAudit stops when fn returns false.
func (s *suite) testReadAudit(t *testing.T) {
	w := s.world(t)
	be := w.open(t, nil)
	Need(t, s.feat.Audit(), be)
	r := w.open(t, nil)
	Need(t, s.feat.AuditRead(), r)
	assert.Empty(t, AuditOf(t, r), "a fresh store's log")

	m := NewMessage("alice", "bob", "audited")
	m.ThreadID, m.TaskID = m.ID, "task-a"
	Deliver(t, be, m)
	in := OpenInbox(t, be, "bob")
	d := Next(t, in)
	rec := store.Event{Time: time.Now(), Kind: store.EventDelivered, Agent: "bob", MessageID: m.ID, From: "alice",
		ThreadID: m.ID, TaskID: "task-a", Reason: "handed to the agent"}
	require.NoError(t, be.Record(testkit.Ctx(t), rec))
	Ack(t, in, d)

	life := []store.EventKind{store.EventSent, store.EventClaimed, store.EventDelivered, store.EventProcessed}
	log := WaitAudit(t, r, m.ID, life...)
	assert.Equal(t, life, KindsOf(log, m.ID), "the life of the message, in order")
	for _, e := range log {
		if e.MessageID != m.ID {
			continue
		}
		assert.False(t, e.Time.IsZero(), "%s has a time", e.Kind)
		want := store.Event{Kind: e.Kind, Agent: "bob", MessageID: m.ID, From: "alice", ThreadID: m.ID, TaskID: "task-a"}
		if e.Kind == store.EventDelivered {
			assert.Equal(t, rec.Time.UnixMilli(), e.Time.UnixMilli(), "the recorded time")
			want.Reason = rec.Reason
		}
		e.Time, e.Ref = time.Time{}, ""
		assert.Equal(t, want, e, "the %s entry", want.Kind)
	}

	calls := 0
	require.NoError(t, r.ReadAudit(testkit.Ctx(t), func(store.Event) bool { calls++; return false }))
	assert.Equal(t, 1, calls, "ReadAudit stops when fn returns false")
}
