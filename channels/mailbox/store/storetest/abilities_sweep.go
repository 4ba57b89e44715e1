package storetest

import (
	"testing"

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
	ev := NewEvents()
	be := w.open(t, ev.Observe)
	in := openInbox(t, be, "bob")
	sw := need[store.TaskSweeper](t, s.sweep(), in)
	task := NewMessage("alice", "bob", "sort 3 1 2")
	task.Type, task.Task = envelope.TypeTask, &envelope.Task{ID: "sweep-1", State: envelope.StatePending}
	question := NewMessage("alice", "bob", "ascending?")
	question.TaskID = "sweep-1"
	other := NewMessage("alice", "bob", "another task")
	other.TaskID = "other-2"
	open := NewMessage("alice", "bob", "still open")
	open.TaskID = "sweep-1"
	deliver(t, be, task, question, other, open)
	for _, m := range []*envelope.Message{task, question, other} {
		expectNext(t, in, m.ID)
	}
	d := next(t, in)
	require.Equal(t, open.ID, d.Message.ID)

	n, err := sw.SweepTask(waitCtx(t), "sweep-1")
	require.NoError(t, err)
	assert.Equal(t, 2, n, "the two handled messages of the task")
	for _, id := range []string{task.ID, question.ID} {
		e := ev.WaitFor(t, store.EventSwept, func(e store.Event) bool { return e.MessageID == id })
		assert.Equal(t, "bob", e.Agent)
		assert.Equal(t, "sweep-1", e.TaskID)
	}
	n, err = sw.SweepTask(waitCtx(t), "sweep-1")
	require.NoError(t, err)
	assert.Zero(t, n, "nothing left to sweep")
	_, err = sw.SweepTask(waitCtx(t), "")
	assert.Error(t, err, "empty task id")

	if b, ok := has[store.Browser](t, s.browse(), be); ok {
		s.assertBoxes(t, b, "bob", map[string]store.Box{task.ID: store.BoxArchive, question.ID: store.BoxArchive,
			other.ID: store.BoxProcessed, open.ID: store.BoxClaimed})
	}
	ack(t, in, d)
}

// testPrune: Prune with zero bounds removes nothing; with a size bound it
// removes acknowledged messages, oldest first, until within it, reports
// an EventPruned, and leaves pending and handed-out messages alone. A
// copy of a pruned message delivered again is still known as handled.
func (s *suite) testPrune(t *testing.T) {
	w := s.world(t)
	ev := NewEvents()
	be := w.open(t, ev.Observe)
	in := openInbox(t, be, "bob")
	p := need[store.Pruner](t, s.prune(), in)
	done := []*envelope.Message{NewMessage("alice", "bob", "1"), NewMessage("alice", "bob", "2"),
		NewMessage("alice", "bob", "3")}
	held, waiting := NewMessage("alice", "bob", "held"), NewMessage("alice", "bob", "waiting")
	deliver(t, be, done...)
	deliver(t, be, held, waiting)
	drain(t, in, len(done))
	d := next(t, in)
	require.Equal(t, held.ID, d.Message.ID)

	rep, err := p.Prune(waitCtx(t), store.Retention{})
	require.NoError(t, err)
	assert.Zero(t, rep.Files, "no bounds, nothing removed")
	rep, err = p.Prune(waitCtx(t), store.Retention{ProcessedMaxBytes: 1})
	require.NoError(t, err)
	assert.Equal(t, len(done), rep.Files, "every handled message is over one byte")
	assert.Positive(t, rep.Bytes)
	e := ev.WaitFor(t, store.EventPruned, nil)
	assert.Equal(t, "bob", e.Agent)
	rep, err = p.Prune(waitCtx(t), store.Retention{ProcessedMaxBytes: 1})
	require.NoError(t, err)
	assert.Zero(t, rep.Files, "nothing left to remove")

	if b, ok := has[store.Browser](t, s.browse(), be); ok {
		got := storedByID(t, b)
		for _, m := range done {
			assert.Empty(t, got[m.ID], "pruned")
		}
		s.assertBoxes(t, b, "bob", map[string]store.Box{held.ID: store.BoxClaimed, waiting.ID: boxPending})
	}
	ack(t, in, d)
	sentinel := NewMessage("alice", "bob", "sentinel")
	deliver(t, be, done[0], sentinel)
	expectNext(t, in, waiting.ID)
	expectNext(t, in, sentinel.ID)
}
