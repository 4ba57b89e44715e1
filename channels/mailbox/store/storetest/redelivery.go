package storetest

import (
	"testing"

	"github.com/switchboard-dev/switchboard/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

func (s *suite) runRedelivery(t *testing.T) {
	t.Run("AfterCrash", testkit.Parallel(s.testRedeliveredAfterCrash))
	t.Run("InAnotherProcess", testkit.Parallel(s.testRedeliveredElsewhere))
	t.Run("AckedNotRedelivered", testkit.Parallel(s.testAckedStays))
	t.Run("QuarantinedNotRedelivered", testkit.Parallel(s.testQuarantinedStays))
	t.Run("SettleTwice", testkit.Parallel(s.testSettleTwice))
	t.Run("ForeignDelivery", testkit.Parallel(s.testForeignDelivery))
	t.Run("HeldAcrossCleanStops", testkit.Parallel(s.testHeldAcrossCleanStops))
	if s.feat.MaxDeliver > 0 {
		t.Run("MaxDeliver", testkit.Parallel(s.testMaxDeliver))
		t.Run("CleanStopsDoNotCount", testkit.Parallel(s.testCleanStopsDoNotCount))
	}
}

// testRedeliveredAfterCrash: a message handed out but not acknowledged
// when its inbox closes (the receiver crashed between hand-off and
// acknowledgement) comes back first when the inbox is opened again, marked
// Redelivered, followed by the rest in order.
func (s *suite) testRedeliveredAfterCrash(t *testing.T) {
	be := s.world(t).open(t, nil)
	m1, m2, m3 := NewMessage("alice", "bob", "1"), NewMessage("alice", "bob", "2"), NewMessage("alice", "bob", "3")
	Deliver(t, be, m1, m2, m3)
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	d := Next(t, in)
	require.Equal(t, m1.ID, d.Message.ID)
	require.NoError(t, in.Close())

	in = OpenInbox(t, be, "bob")
	d = Next(t, in)
	assert.Equal(t, m1.ID, d.Message.ID, "the unacknowledged message comes back first")
	assert.True(t, d.Redelivered, "and is marked redelivered")
	Ack(t, in, d)
	ExpectNext(t, in, m2.ID)
	ExpectNext(t, in, m3.ID)
}

// testRedeliveredElsewhere: the inbox reopened by another process (a
// restarted receiver) gets the unacknowledged message, handed out once.
func (s *suite) testRedeliveredElsewhere(t *testing.T) {
	w := s.world(t)
	first := w.open(t, nil)
	m := NewMessage("alice", "bob", "crash")
	Deliver(t, first, m)
	in, err := first.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	require.Equal(t, m.ID, Next(t, in).Message.ID)
	require.NoError(t, in.Close())
	require.NoError(t, first.Close())

	second := w.open(t, nil)
	in2 := OpenInbox(t, second, "bob")
	d := ExpectNext(t, in2, m.ID)
	assert.True(t, d.Redelivered)
	sentinel := NewMessage("alice", "bob", "sentinel")
	Deliver(t, second, sentinel)
	ExpectNext(t, in2, sentinel.ID)
}

// testAckedStays: acknowledged messages are not delivered again after a
// reopen.
func (s *suite) testAckedStays(t *testing.T) {
	w := s.world(t)
	be := w.open(t, nil)
	m := NewMessage("alice", "bob", "done")
	Deliver(t, be, m)
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	ExpectNext(t, in, m.ID)
	require.NoError(t, in.Close())
	require.NoError(t, be.Close())

	be2 := w.open(t, nil)
	sentinel := NewMessage("alice", "bob", "sentinel")
	Deliver(t, be2, sentinel)
	ExpectNext(t, OpenInbox(t, be2, "bob"), sentinel.ID)
}

// testQuarantinedStays: a message set aside with Quarantine is reported as
// refused and not delivered again.
func (s *suite) testQuarantinedStays(t *testing.T) {
	ev := testkit.NewEvents()
	be := s.world(t).open(t, ev.Observe)
	m := NewMessage("mallory", "bob", "spam")
	Deliver(t, be, m)
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	d := Next(t, in)
	require.NoError(t, in.Quarantine(testkit.Ctx(t), d, "unauthorized: sender mallory not in allowFrom"))
	got := ev.WaitKind(t, store.EventRefused, func(e store.Event) bool { return e.MessageID == m.ID })
	assert.Contains(t, got.Reason, "unauthorized")
	require.NoError(t, in.Close())

	sentinel := NewMessage("alice", "bob", "sentinel")
	Deliver(t, be, sentinel)
	ExpectNext(t, OpenInbox(t, be, "bob"), sentinel.ID)
}

// testSettleTwice: acknowledging twice is harmless; quarantining an
// acknowledged delivery is an error.
func (s *suite) testSettleTwice(t *testing.T) {
	be := s.world(t).open(t, nil)
	Deliver(t, be, NewMessage("alice", "bob", "x"))
	in := OpenInbox(t, be, "bob")
	d := Next(t, in)
	Ack(t, in, d)
	assert.NoError(t, in.Ack(testkit.Ctx(t), d), "second ack")
	assert.Error(t, in.Quarantine(testkit.Ctx(t), d, "too late"))
	assert.Error(t, in.Ack(testkit.Ctx(t), nil), "nil delivery")
}

// testForeignDelivery: a delivery from another inbox is refused.
func (s *suite) testForeignDelivery(t *testing.T) {
	be := s.world(t).open(t, nil)
	Deliver(t, be, NewMessage("alice", "bob", "for bob"), NewMessage("alice", "carol", "for carol"))
	bob, carol := OpenInbox(t, be, "bob"), OpenInbox(t, be, "carol")
	d := Next(t, carol)
	assert.Error(t, bob.Ack(testkit.Ctx(t), d))
	assert.Error(t, bob.Ack(testkit.Ctx(t), &store.Delivery{Message: d.Message, Ref: "forged"}))
	Ack(t, carol, d)
	Ack(t, bob, Next(t, bob))
}

// testHeldAcrossCleanStops: a message held (handed out, never settled)
// across any number of clean stops of its receiver (Close: a task waiting
// on its subtask while the agent restarts) comes back first each time,
// marked Redelivered, and is never set aside: a clean stop is no crash.
func (s *suite) testHeldAcrossCleanStops(t *testing.T) {
	ev := testkit.NewEvents()
	be := s.world(t).open(t, ev.Observe)
	m := NewMessage("alice", "bob", "held while its subtask runs")
	Deliver(t, be, m)
	for i := range max(s.feat.MaxDeliver, 5) + 3 {
		in, err := be.OpenInbox(testkit.Ctx(t), "bob")
		require.NoError(t, err)
		d := Next(t, in)
		require.Equal(t, m.ID, d.Message.ID, "hand-out %d", i+1)
		assert.Equal(t, i > 0, d.Redelivered, "hand-out %d", i+1)
		require.NoError(t, in.Close())
	}
	sentinel := NewMessage("alice", "bob", "sentinel")
	Deliver(t, be, sentinel)
	in := OpenInbox(t, be, "bob")
	d := ExpectNext(t, in, m.ID)
	assert.True(t, d.Redelivered)
	ExpectNext(t, in, sentinel.ID)
	assert.Zero(t, ev.CountKind(store.EventQuarantined), "nothing set aside: %s", ev)
}

// crash closes in as a killed receiver leaves it (Harness.Crash).
func (s *suite) crash(t *testing.T, w *world, in driver.Inbox) {
	t.Helper()
	if w.h.Crash == nil {
		t.Fatal("Harness.Crash is nil; a backend with Features.MaxDeliver must say how a receiver crashes")
	}
	w.h.Crash(t, in)
}

// testMaxDeliver: a message handed out MaxDeliver times, its receiver
// crashing each time before it acknowledges it, is set aside as poison
// and not handed out again.
func (s *suite) testMaxDeliver(t *testing.T) {
	ev := testkit.NewEvents()
	w := s.world(t)
	be := w.driver(t, ev.Observe)
	m := NewMessage("alice", "bob", "crashes the receiver")
	Deliver(t, be, m)
	for i := range s.feat.MaxDeliver {
		in, err := be.OpenInbox(testkit.Ctx(t), "bob")
		require.NoError(t, err)
		d := Next(t, in)
		require.Equal(t, m.ID, d.Message.ID, "delivery %d", i+1)
		assert.Equal(t, i > 0, d.Redelivered, "delivery %d", i+1)
		s.crash(t, w, in)
	}
	sentinel := NewMessage("alice", "bob", "sentinel")
	Deliver(t, be, sentinel)
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	t.Cleanup(func() { in.Close() })
	ExpectNext(t, in, sentinel.ID)
	got := ev.WaitKind(t, store.EventQuarantined, func(e store.Event) bool { return e.MessageID == m.ID })
	assert.Contains(t, got.Reason, "without an acknowledgement", "the reason says what happened")
	assert.True(t, store.IsMaxDeliver(got.Reason), got.Reason)
}

// testCleanStopsDoNotCount: only the hand-outs the receiver crashed on
// count towards maxDeliver. A message crashed on MaxDeliver-1 times, then
// held across clean stops, is handed out once more (and set aside only
// when that hand-out is crashed on too).
func (s *suite) testCleanStopsDoNotCount(t *testing.T) {
	ev := testkit.NewEvents()
	w := s.world(t)
	be := w.driver(t, ev.Observe)
	m := NewMessage("alice", "bob", "crashed on, then held")
	Deliver(t, be, m)
	handOut := func(i int) driver.Inbox {
		in, err := be.OpenInbox(testkit.Ctx(t), "bob")
		require.NoError(t, err)
		d := Next(t, in)
		require.Equal(t, m.ID, d.Message.ID, "hand-out %d", i)
		assert.Equal(t, i > 1, d.Redelivered, "hand-out %d", i)
		return in
	}
	n := 0
	for range s.feat.MaxDeliver - 1 {
		n++
		s.crash(t, w, handOut(n))
	}
	for range 3 {
		n++
		require.NoError(t, handOut(n).Close())
	}
	n++
	s.crash(t, w, handOut(n)) // the MaxDeliver-th hand-out that counts
	assert.Zero(t, ev.CountKind(store.EventQuarantined), "not set aside before: %s", ev)

	sentinel := NewMessage("alice", "bob", "sentinel")
	Deliver(t, be, sentinel)
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	t.Cleanup(func() { in.Close() })
	ExpectNext(t, in, sentinel.ID)
	got := ev.WaitKind(t, store.EventQuarantined, func(e store.Event) bool { return e.MessageID == m.ID })
	assert.Equal(t, store.MaxDeliverReason(s.feat.MaxDeliver, s.feat.MaxDeliver), got.Reason)
}
