package storetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// testRecord: Record reports the event to the backend's Observer as it
// was given, with a time when it had none; a closed backend refuses it
// with ErrClosed.
func (s *suite) testRecord(t *testing.T) {
	ev := NewEvents()
	be := s.world(t).open(t, ev.Observe)
	a := need[store.Auditor](t, s.audit(), be)
	want := store.Event{Kind: store.EventDelivered, Agent: "bob", MessageID: "m-1", From: "alice",
		ThreadID: "th-1", TaskID: "task-1", Reason: "handed to the agent"}
	require.NoError(t, a.Record(waitCtx(t), want))
	got := ev.WaitFor(t, store.EventDelivered, func(e store.Event) bool { return e.MessageID == "m-1" })
	assert.False(t, got.Time.IsZero(), "stamped with a time")
	got.Time = time.Time{}
	assert.Equal(t, want, got)

	require.NoError(t, be.Close())
	assert.ErrorIs(t, a.Record(waitCtx(t), want), store.ErrClosed)
}

// auditOf reads the whole audit log of r.
func auditOf(t *testing.T, r store.AuditReader) []store.Event {
	t.Helper()
	var out []store.Event
	require.NoError(t, r.ReadAudit(waitCtx(t), func(e store.Event) bool { out = append(out, e); return true }))
	return out
}

// kindsOf returns the kinds of the entries about message id, in order.
func kindsOf(log []store.Event, id string) []store.EventKind {
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
// them, what Record recorded, as it was given. A fresh store's log is
// empty; ReadAudit stops when fn returns false.
func (s *suite) testReadAudit(t *testing.T) {
	w := s.world(t)
	be := w.open(t, nil)
	a := need[store.Auditor](t, s.audit(), be)
	r := need[store.AuditReader](t, s.auditRead(), w.open(t, nil))
	assert.Empty(t, auditOf(t, r), "a fresh store's log")

	m := NewMessage("alice", "bob", "audited")
	m.ThreadID, m.TaskID = m.ID, "task-a"
	deliver(t, be, m)
	in := openInbox(t, be, "bob")
	d := next(t, in)
	rec := store.Event{Time: time.Now(), Kind: store.EventDelivered, Agent: "bob", MessageID: m.ID, From: "alice",
		ThreadID: m.ID, TaskID: "task-a", Reason: "handed to the agent"}
	require.NoError(t, a.Record(waitCtx(t), rec))
	ack(t, in, d)

	log := auditOf(t, r)
	assert.Equal(t, []store.EventKind{store.EventSent, store.EventClaimed, store.EventDelivered, store.EventProcessed},
		kindsOf(log, m.ID), "the life of the message, in order")
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
	require.NoError(t, r.ReadAudit(waitCtx(t), func(store.Event) bool { calls++; return false }))
	assert.Equal(t, 1, calls, "ReadAudit stops when fn returns false")
}
