package storetest

import (
	"fmt"
	"testing"

	"github.com/switchboard-dev/switchboard/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

func (s *suite) runAbilities(t *testing.T) {
	t.Run("Declared", testkit.Parallel(s.testDeclared))
	t.Run("Browse", testkit.Parallel(s.testBrowse))
	t.Run("Record", testkit.Parallel(s.testRecord))
	t.Run("ReadAudit", testkit.Parallel(s.testReadAudit))
	t.Run("SweepTask", testkit.Parallel(s.testSweepTask))
	t.Run("Prune", testkit.Parallel(s.testPrune))
	t.Run("Approvals", testkit.Parallel(s.testApprovals))
	t.Run("Escalations", testkit.Parallel(s.testEscalations))
	t.Run("DrainNudge", testkit.Parallel(s.testDrainNudge))
}

// Ability is one optional ability of a backend (or of its Inbox), as
// store.Store.Has and store.Inbox.Has report it, and the Features flag
// that says a backend lacks it (see Has and Need).
type Ability struct {
	ability store.Ability
	iface   string // the driver's interface, as written in Go
	flag    string // the Features field
	lacks   bool   // the flag's value
}

// Browse is driver.Browser, lacking with NoBrowse.
func (f Features) Browse() Ability {
	return Ability{store.CanBrowse, "driver.Browser", "NoBrowse", f.NoBrowse}
}

// Audit is driver.Auditor, lacking with NoAudit.
func (f Features) Audit() Ability {
	return Ability{store.CanAudit, "driver.Auditor", "NoAudit", f.NoAudit}
}

// AuditRead is driver.AuditReader, lacking with NoAuditRead.
func (f Features) AuditRead() Ability {
	return Ability{store.CanReadAudit, "driver.AuditReader", "NoAuditRead", f.NoAuditRead}
}

// Sweep is driver.TaskSweeper (of an Inbox), lacking with NoSweep.
func (f Features) Sweep() Ability {
	return Ability{store.CanSweep, "driver.TaskSweeper", "NoSweep", f.NoSweep}
}

// Prune is driver.Pruner (of an Inbox), lacking with NoPrune.
func (f Features) Prune() Ability {
	return Ability{store.CanPrune, "driver.Pruner", "NoPrune", f.NoPrune}
}

// Artifacts is driver.Artifacts, lacking with NoArtifacts.
func (f Features) Artifacts() Ability {
	return Ability{store.CanStoreArtifacts, "driver.Artifacts", "NoArtifacts", f.NoArtifacts}
}

// RecordUpdate is driver.RecordUpdater, lacking with NoRecordUpdate.
func (f Features) RecordUpdate() Ability {
	return Ability{store.CanUpdateRecords, "driver.RecordUpdater", "NoRecordUpdate", f.NoRecordUpdate}
}

// Nudge is driver.Nudger, lacking with NoNudge.
func (f Features) Nudge() Ability {
	return Ability{store.CanNudge, "driver.Nudger", "NoNudge", f.NoNudge}
}

// Haver is what tells which abilities its backend has: a *store.Store,
// or a *store.Inbox for the abilities of an inbox.
type Haver interface {
	Has(a store.Ability) bool
}

// mismatch says how the flag of a contradicts what (the backend's or its
// inbox's type) when ok says whether it implements the interface, or
// returns "" when they agree.
func (a Ability) mismatch(what string, ok bool) string {
	switch {
	case ok && a.lacks:
		return fmt.Sprintf("%s implements %s, but Features.%s is true: set the flag to false", what, a.iface, a.flag)
	case !ok && !a.lacks:
		return fmt.Sprintf("%s does not implement %s: implement it, or set Features.%s while the backend lacks it",
			what, a.iface, a.flag)
	}
	return ""
}

// Has reports whether v's backend has a; it fails t when that contradicts
// the flag of a.
func Has(t *testing.T, a Ability, v Haver) bool {
	t.Helper()
	ok := v.Has(a.ability)
	if msg := a.mismatch("the backend", ok); msg != "" {
		t.Fatal(msg)
	}
	return ok
}

// Need skips t when v's backend lacks a as its flag says, and fails t
// when the flag and the backend disagree.
func Need(t *testing.T, a Ability, v Haver) {
	t.Helper()
	if !Has(t, a, v) {
		t.Skipf("the backend lacks %s (Features.%s)", a.iface, a.flag)
	}
}

// testDeclared: every ability flag matches the backend's types, whatever
// the other cases skip.
func (s *suite) testDeclared(t *testing.T) {
	w := s.world(t)
	drv := w.driver(t, nil)
	be := store.New(drv, nil)
	in := OpenInbox(t, be, "probe")
	check := func(a Ability, v Haver, what string) {
		if msg := a.mismatch(what, v.Has(a.ability)); msg != "" {
			t.Error(msg)
		}
	}
	what := fmt.Sprintf("%T", drv)
	check(s.feat.Browse(), be, what)
	check(s.feat.Audit(), be, what)
	check(s.feat.AuditRead(), be, what)
	check(s.feat.Artifacts(), be, what)
	check(s.feat.RecordUpdate(), be, what)
	check(s.feat.Nudge(), be, what)
	check(s.feat.Sweep(), in, "the inbox of "+what)
	check(s.feat.Prune(), in, "the inbox of "+what)
}

// storedByID browses b and returns what it holds, by message id.
func storedByID(t *testing.T, b *store.Store) map[string][]store.Stored {
	t.Helper()
	out := map[string][]store.Stored{}
	require.NoError(t, b.Browse(testkit.Ctx(t), func(st store.Stored) bool {
		out[st.Message.ID] = append(out[st.Message.ID], st)
		return true
	}))
	return out
}

// BoxPending stands, in what assertBoxes wants, for a pending message
// (not yet returned by Next) of an agent whose inbox is open: BoxInbox,
// or also BoxClaimed for a backend with Features.ReadAhead, once the
// inbox took it ahead.
const BoxPending store.Box = "inbox (or claimed when read ahead)"

// AssertBoxes checks that b holds each message of want once, in agent's
// mailbox, in the box given (BoxPending: see there).
func (f Features) AssertBoxes(t *testing.T, b *store.Store, agent string, want map[string]store.Box) {
	t.Helper()
	got := storedByID(t, b)
	for id, box := range want {
		if !assert.Len(t, got[id], 1, "copies of %s", id) {
			continue
		}
		st := got[id][0]
		if box == BoxPending {
			box = store.BoxInbox
			if f.ReadAhead && st.Box == store.BoxClaimed {
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
	b := w.open(t, nil)
	Need(t, s.feat.Browse(), b)
	m1, m2, m3 := NewMessage("alice", "bob", "1"), NewMessage("alice", "bob", "2"), NewMessage("carol", "bob", "3")
	m3.ThreadID, m3.ReplyTo = m1.ID, m1.ID
	waiting := NewMessage("alice", "dave", "for later") // dave's inbox never opens
	Deliver(t, be, m1, m2, m3, waiting)
	in := OpenInbox(t, be, "bob")
	ExpectNext(t, in, m1.ID)
	d := Next(t, in)
	require.Equal(t, m2.ID, d.Message.ID)
	s.feat.AssertBoxes(t, b, "bob", map[string]store.Box{m1.ID: store.BoxProcessed, m2.ID: store.BoxClaimed,
		m3.ID: BoxPending})
	s.feat.AssertBoxes(t, b, "dave", map[string]store.Box{waiting.ID: store.BoxInbox})
	got := storedByID(t, b)[m3.ID][0].Message
	assert.Equal(t, m3.Text(), got.Text())
	assert.Equal(t, m3.From, got.From)
	assert.Equal(t, m1.ID, got.ThreadID)
	assert.Equal(t, m1.ID, got.ReplyTo)
	assert.Equal(t, m3.Timestamp.UnixMilli(), got.Timestamp.UnixMilli())

	calls := 0
	require.NoError(t, b.Browse(testkit.Ctx(t), func(store.Stored) bool { calls++; return false }))
	assert.Equal(t, 1, calls, "Browse stops when fn returns false")
	Ack(t, in, d)
	s.feat.AssertBoxes(t, b, "bob", map[string]store.Box{m2.ID: store.BoxProcessed})
}
