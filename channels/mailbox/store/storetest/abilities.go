package storetest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

func (s *suite) runAbilities(t *testing.T) {
	t.Run("Declared", s.testDeclared)
	t.Run("Browse", s.testBrowse)
	t.Run("Record", s.testRecord)
	t.Run("ReadAudit", s.testReadAudit)
	t.Run("SweepTask", s.testSweepTask)
	t.Run("Prune", s.testPrune)
}

// ability is one optional interface of package store and the Features
// flag that says a backend lacks it.
type ability struct {
	iface string // the interface, as written in Go
	flag  string // the Features field
	lacks bool   // the flag's value
}

func (s *suite) browse() ability { return ability{"store.Browser", "NoBrowse", s.feat.NoBrowse} }
func (s *suite) audit() ability  { return ability{"store.Auditor", "NoAudit", s.feat.NoAudit} }
func (s *suite) auditRead() ability {
	return ability{"store.AuditReader", "NoAuditRead", s.feat.NoAuditRead}
}
func (s *suite) sweep() ability { return ability{"store.TaskSweeper", "NoSweep", s.feat.NoSweep} }
func (s *suite) prune() ability { return ability{"store.Pruner", "NoPrune", s.feat.NoPrune} }

// mismatch says how the flag of a contradicts v's type (ok: whether v
// implements the interface), or returns "" when they agree.
func (a ability) mismatch(v any, ok bool) string {
	switch {
	case ok && a.lacks:
		return fmt.Sprintf("%T implements %s, but Features.%s is true: set the flag to false", v, a.iface, a.flag)
	case !ok && !a.lacks:
		return fmt.Sprintf("%T does not implement %s: implement it, or set Features.%s while the backend lacks it",
			v, a.iface, a.flag)
	}
	return ""
}

// has returns v (a Backend or an Inbox) as T and whether it is one; it
// fails t when that contradicts the flag of a.
func has[T any](t *testing.T, a ability, v any) (T, bool) {
	t.Helper()
	x, ok := v.(T)
	if msg := a.mismatch(v, ok); msg != "" {
		t.Fatal(msg)
	}
	return x, ok
}

// need returns v as T, skipping t when the backend lacks a as its flag
// says, and failing t when the flag and the type disagree.
func need[T any](t *testing.T, a ability, v any) T {
	t.Helper()
	x, ok := has[T](t, a, v)
	if !ok {
		t.Skipf("the backend lacks %s (Features.%s)", a.iface, a.flag)
	}
	return x
}

// testDeclared: every ability flag matches the backend's types, whatever
// the other cases skip.
func (s *suite) testDeclared(t *testing.T) {
	be := s.world(t).open(t, nil)
	in := openInbox(t, be, "probe")
	check := func(a ability, v any, ok bool) {
		if msg := a.mismatch(v, ok); msg != "" {
			t.Error(msg)
		}
	}
	_, ok := be.(store.Browser)
	check(s.browse(), be, ok)
	_, ok = be.(store.Auditor)
	check(s.audit(), be, ok)
	_, ok = be.(store.AuditReader)
	check(s.auditRead(), be, ok)
	_, ok = in.(store.TaskSweeper)
	check(s.sweep(), in, ok)
	_, ok = in.(store.Pruner)
	check(s.prune(), in, ok)
}

// storedByID browses b and returns what it holds, by message id.
func storedByID(t *testing.T, b store.Browser) map[string][]store.Stored {
	t.Helper()
	out := map[string][]store.Stored{}
	require.NoError(t, b.Browse(waitCtx(t), func(st store.Stored) bool {
		out[st.Message.ID] = append(out[st.Message.ID], st)
		return true
	}))
	return out
}

// boxPending stands, in what assertBoxes wants, for a pending message
// (not yet returned by Next) of an agent whose inbox is open: BoxInbox,
// or also BoxClaimed for a backend with Features.ReadAhead, once the
// inbox took it ahead.
const boxPending store.Box = "inbox (or claimed when read ahead)"

// assertBoxes checks that b holds each message of want once, in agent's
// mailbox, in the box given (boxPending: see there).
func (s *suite) assertBoxes(t *testing.T, b store.Browser, agent string, want map[string]store.Box) {
	t.Helper()
	got := storedByID(t, b)
	for id, box := range want {
		if !assert.Len(t, got[id], 1, "copies of %s", id) {
			continue
		}
		st := got[id][0]
		if box == boxPending {
			box = store.BoxInbox
			if s.feat.ReadAhead && st.Box == store.BoxClaimed {
				box = store.BoxClaimed
			}
		}
		assert.Equal(t, agent, st.Agent, "agent of %s", id)
		assert.Equal(t, box, st.Box, "box of %s", id)
		assert.NotEmpty(t, st.Ref, "ref of %s", id)
	}
}

// testBrowse: another process's Browse reports each message once, whole,
// in the box it is in (pending, handed out, acknowledged), and stops when
// fn returns false.
func (s *suite) testBrowse(t *testing.T) {
	w := s.world(t)
	be := w.open(t, nil)
	b := need[store.Browser](t, s.browse(), w.open(t, nil))
	m1, m2, m3 := NewMessage("alice", "bob", "1"), NewMessage("alice", "bob", "2"), NewMessage("carol", "bob", "3")
	m3.ThreadID, m3.ReplyTo = m1.ID, m1.ID
	waiting := NewMessage("alice", "dave", "for later") // dave's inbox never opens
	deliver(t, be, m1, m2, m3, waiting)
	in := openInbox(t, be, "bob")
	expectNext(t, in, m1.ID)
	d := next(t, in)
	require.Equal(t, m2.ID, d.Message.ID)
	s.assertBoxes(t, b, "bob", map[string]store.Box{m1.ID: store.BoxProcessed, m2.ID: store.BoxClaimed,
		m3.ID: boxPending})
	s.assertBoxes(t, b, "dave", map[string]store.Box{waiting.ID: store.BoxInbox})
	got := storedByID(t, b)[m3.ID][0].Message
	assert.Equal(t, m3.Text(), got.Text())
	assert.Equal(t, m3.From, got.From)
	assert.Equal(t, m1.ID, got.ThreadID)
	assert.Equal(t, m1.ID, got.ReplyTo)
	assert.Equal(t, m3.Timestamp.UnixMilli(), got.Timestamp.UnixMilli())

	calls := 0
	require.NoError(t, b.Browse(waitCtx(t), func(store.Stored) bool { calls++; return false }))
	assert.Equal(t, 1, calls, "Browse stops when fn returns false")
	ack(t, in, d)
	s.assertBoxes(t, b, "bob", map[string]store.Box{m2.ID: store.BoxProcessed})
}
