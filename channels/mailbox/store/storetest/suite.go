package storetest

import (
	"testing"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Factory makes one fresh, empty mailbox store for a test and returns the
// harness through which the suite reaches it. Resources it starts are
// released through t.Cleanup.
type Factory func(t *testing.T) *Harness

// Harness is one store under test.
type Harness struct {
	// Open connects a new Backend to the store, as another process would:
	// every Backend opened on one Harness sees the same inboxes, cards and
	// records. obs (may be nil) receives the new Backend's events. The
	// suite closes what it opens; it uses most of it through the facade
	// (store.New), as every consumer does.
	Open func(t *testing.T, obs store.Observer) driver.Backend
	// InjectRaw puts data, as it is, into agent's inbox as if sent by
	// from, bypassing every check of Deliver, so the suite can hand the
	// inbox input that does not decode. Nil when the backend cannot hold
	// such input (see Features.NoRawInput).
	InjectRaw func(t *testing.T, agent, from string, data []byte)
	// CorruptArtifact replaces the stored bytes of artifact digest with
	// data, as a disk fault or a hand edit would, so the suite can check
	// that such bytes are refused when read. Nil skips that case.
	CorruptArtifact func(t *testing.T, digest string, data []byte)
	// Crash closes in, an inbox of a Backend that Open returned, as a
	// receiver killed while it held messages leaves it: what it handed
	// out and did not settle is redelivered at the next opening, and
	// those hand-outs count towards maxDeliver (where Close, a clean
	// stop, does not count them). Required when Features.MaxDeliver is
	// above 0.
	Crash func(t *testing.T, in driver.Inbox)
}

// Features says what a backend lacks or adds; the zero value is a backend
// that has everything the suite checks and nothing extra.
//
// The flags of the optional abilities (the interfaces of
// driver/optional.go, as store.Store.Has and store.Inbox.Has report them)
// must match the backend's types: a backend that implements an interface
// while its flag says it lacks it, or lacks one its flag does not name,
// fails the suite ("Abilities/Declared" and every case that uses the
// ability) instead of skipping, so a flag can neither hide a regression
// nor outlive the gap it names.
type Features struct {
	// NoRawInput skips the tests of input that does not decode.
	NoRawInput bool
	// MaxDeliver, when above 0, is how many times the backend hands out a
	// message that is never acknowledged before it sets the message aside
	// as poison (reported as EventQuarantined). 0: the backend redelivers
	// for ever.
	MaxDeliver int

	// NoBrowse: the Backend is no driver.Browser. The cases that read the
	// store back are skipped: Browse itself, mailbox.Thread, FindPending,
	// the boxes of handled and swept messages, and a reply stored by
	// another process (Channel.Archive, and a held request answered while
	// its agent was down).
	NoBrowse bool
	// NoAudit: the Backend is no driver.Auditor. The cases of Record, and
	// of the channel's own events (delivered, overdue), are skipped.
	NoAudit bool
	// NoAuditRead: the Backend is no driver.AuditReader. The cases that read
	// the audit log back are skipped.
	NoAuditRead bool
	// NoSweep: the backend's Inbox is no driver.TaskSweeper. The cases of a
	// task's messages moved to its archive are skipped.
	NoSweep bool
	// NoPrune: the backend's Inbox is no driver.Pruner. The retention case
	// is skipped.
	NoPrune bool
	// NoArtifacts: the Backend is no driver.Artifacts. The cases of the
	// artifact store are skipped.
	NoArtifacts bool
	// NoRecordUpdate: the Backend is no driver.RecordUpdater. The cases of
	// records changed in place, and of the file reservations built on
	// them, are skipped.
	NoRecordUpdate bool
	// NoNudge: the Backend is no driver.Nudger. Drain requests are then
	// found by reading them (store.WatchDrainRequests fails with
	// store.ErrNotSupported), which the suite checks instead.
	NoNudge bool
	// ReadAhead: the inbox takes messages ahead of Next (a prefetch), and
	// Browse may show a message not yet returned by Next as BoxClaimed.
	// The suite then accepts BoxClaimed for such a message, where it
	// otherwise wants BoxInbox; a message handed out and acknowledged must
	// still be BoxProcessed, and one for an agent whose inbox never
	// opened BoxInbox.
	ReadAhead bool
}

// Run runs the whole suite as subtests of t.
func Run(t *testing.T, f Factory, features Features) {
	t.Helper()
	s := &suite{f: f, feat: features}
	t.Run("Delivery", testkit.Parallel(s.runDelivery))
	t.Run("Redelivery", testkit.Parallel(s.runRedelivery))
	t.Run("Poison", testkit.Parallel(s.runPoison))
	t.Run("Registry", testkit.Parallel(s.runRegistry))
	t.Run("State", testkit.Parallel(s.runState))
	t.Run("Records", testkit.Parallel(s.runRecords))
	t.Run("Errors", testkit.Parallel(s.runErrors))
	t.Run("Abilities", testkit.Parallel(s.runAbilities))
	t.Run("Artifacts", testkit.Parallel(s.runArtifacts))
	t.Run("Reservations", testkit.Parallel(s.runReservations))
}

type suite struct {
	f    Factory
	feat Features
}

// world is one store under test with the backends a test opened on it.
type world struct {
	h *Harness
}

func (s *suite) world(t *testing.T) *world {
	t.Helper()
	return &world{h: s.f(t)}
}

// open opens a backend and closes it when the test ends, and returns the
// store over it.
func (w *world) open(t *testing.T, obs store.Observer) *store.Store {
	t.Helper()
	return store.New(w.driver(t, obs), nil)
}

// driver opens a backend and closes it when the test ends.
func (w *world) driver(t *testing.T, obs store.Observer) driver.Backend {
	t.Helper()
	be := w.h.Open(t, obs)
	t.Cleanup(func() { be.Close() })
	return be
}
