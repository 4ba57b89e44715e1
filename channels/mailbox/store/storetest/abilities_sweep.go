package storetest

import (
	"testing"

	"github.com/switchboard-dev/switchboard/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// testSweepTask: SweepTask moves the acknowledged messages of one task
// (by task block or task_id), and only those, to the task's archive: each
// is reported as EventSwept and found by Browse in BoxArchive. A message
// of the task not handled yet, and those of other tasks, stay; a second
// sweep moves nothing; an empty task id is an error.
func (s *suite) testSweepTask(t *testing.T) {
	w := s.world(t)
	ev := testkit.NewEvents()
	be := w.open(t, ev.Observe)
	in := OpenInbox(t, be, "bob")
	Need(t, s.feat.Sweep(), in)
	task := NewMessage("alice", "bob", "sort 3 1 2")
	task.Type, task.Task = envelope.TypeTask, &envelope.Task{ID: "sweep-1", State: envelope.StatePending}
	question := NewMessage("alice", "bob", "ascending?")
	question.TaskID = "sweep-1"
	other := NewMessage("alice", "bob", "another task")
	other.TaskID = "other-2"
	open := NewMessage("alice", "bob", "still open")
	open.TaskID = "sweep-1"
	Deliver(t, be, task, question, other, open)
	for _, m := range []*envelope.Message{task, question, other} {
		ExpectNext(t, in, m.ID)
	}
	d := Next(t, in)
	require.Equal(t, open.ID, d.Message.ID)

	n, err := in.SweepTask(testkit.Ctx(t), "sweep-1")
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the two handled messages of the task")
	for _, id := range []string{task.ID, question.ID} {
		e := ev.WaitKind(t, store.EventSwept, func(e store.Event) bool { return e.MessageID == id })
		assert.Equal(t, "bob", e.Agent)
		assert.Equal(t, "sweep-1", e.TaskID)
	}
	n, err = in.SweepTask(testkit.Ctx(t), "sweep-1")
	require.NoError(t, err)
	assert.Zero(t, n, "nothing left to sweep")
	_, err = in.SweepTask(testkit.Ctx(t), "")
	assert.Error(t, err, "empty task id")

	if Has(t, s.feat.Browse(), be) {
		s.feat.AssertBoxes(t, be, "bob", map[string]store.Box{task.ID: store.BoxArchive, question.ID: store.BoxArchive,
			other.ID: store.BoxProcessed, open.ID: store.BoxClaimed})
	}
	Ack(t, in, d)
}

// testPrune: Prune with zero bounds removes nothing; with a size bound it
// removes acknowledged messages, oldest first, until within it, reports
// an EventPruned, and leaves pending and handed-out messages alone. A
// copy of a pruned message delivered again is still known as handled.
func (s *suite) testPrune(t *testing.T) {
	w := s.world(t)
	ev := testkit.NewEvents()
	be := w.open(t, ev.Observe)
	in := OpenInbox(t, be, "bob")
	Need(t, s.feat.Prune(), in)
	done := []*envelope.Message{NewMessage("alice", "bob", "1"), NewMessage("alice", "bob", "2"),
		NewMessage("alice", "bob", "3")}
	held, waiting := NewMessage("alice", "bob", "held"), NewMessage("alice", "bob", "waiting")
	Deliver(t, be, done...)
	Deliver(t, be, held, waiting)
	drain(t, in, len(done))
	d := Next(t, in)
	require.Equal(t, held.ID, d.Message.ID)

	rep, err := in.Prune(testkit.Ctx(t), store.Retention{})
	require.NoError(t, err)
	assert.Zero(t, rep.Files, "no bounds, nothing removed")
	rep, err = in.Prune(testkit.Ctx(t), store.Retention{ProcessedMaxBytes: 1})
	require.NoError(t, err)
	assert.Equal(t, len(done), rep.Files, "every handled message is over one byte")
	assert.Positive(t, rep.Bytes)
	e := ev.WaitKind(t, store.EventPruned, nil)
	assert.Equal(t, "bob", e.Agent)
	rep, err = in.Prune(testkit.Ctx(t), store.Retention{ProcessedMaxBytes: 1})
	require.NoError(t, err)
	assert.Zero(t, rep.Files, "nothing left to remove")

	if Has(t, s.feat.Browse(), be) {
		got := storedByID(t, be)
		for _, m := range done {
			assert.Empty(t, got[m.ID], "pruned")
		}
		s.feat.AssertBoxes(t, be, "bob", map[string]store.Box{held.ID: store.BoxClaimed, waiting.ID: BoxPending})
	}
	Ack(t, in, d)
	sentinel := NewMessage("alice", "bob", "sentinel")
	Deliver(t, be, done[0], sentinel)
	ExpectNext(t, in, waiting.ID)
	ExpectNext(t, in, sentinel.ID)
}
