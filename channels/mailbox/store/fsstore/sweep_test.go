package fsstore

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// handle delivers m to its recipient's inbox in, claims it and, unless
// hold, acknowledges it.
func handle(t *testing.T, s *Store, in *Inbox, m *envelope.Message, hold bool) {
	t.Helper()
	deliver(t, s, m)
	d := next(t, in)
	require.Equal(t, m.ID, d.Message.ID)
	if !hold {
		ack(t, in, d)
	}
}

func inTask(m *envelope.Message, task string) *envelope.Message {
	m.TaskID = task
	return m
}

func TestSweepTaskMovesItsHandledMessages(t *testing.T) {
	t.Parallel()
	s, events := openMsgStore(t)
	in := openTestInbox(t, s, "coder")
	a := inTask(newMsg("lead", "coder", "a"), "t1")
	other := inTask(newMsg("lead", "coder", "other"), "t2")
	plain := newMsg("lead", "coder", "plain")
	for _, m := range []*envelope.Message{a, other, plain} {
		handle(t, s, in, m, false)
	}
	held := inTask(newMsg("lead", "coder", "held"), "t1")
	handle(t, s, in, held, true)
	waiting := inTask(newMsg("lead", "coder", "waiting"), "t1")
	deliver(t, s, waiting)

	n, err := in.SweepTask(context.Background(), "t1")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	archived := agentPath(s, "coder", "archive", "by-task", "t1")
	assert.Equal(t, []string{envelope.FileName(a)}, names(t, archived))
	assert.Len(t, names(t, agentPath(s, "coder", "processed")), 2, "other tasks' and plain messages stay")
	assert.ElementsMatch(t, []string{envelope.FileName(held), envelope.FileName(waiting)}, names(t, agentPath(s, "coder", "inbox")),
		"a message being handled stays, and one not read yet")
	ev := events.TakeKind(t, driver.EventSwept, nil)
	assert.Equal(t, a.ID, ev.MessageID)
	assert.Equal(t, "t1", ev.TaskID)
	assert.Equal(t, filepath.Join("archive", "by-task", "t1", envelope.FileName(a)), ev.Ref)

	// Messages acknowledged after the index was built are found too.
	ack(t, in, next(t, in)) // the one that was waiting (task t1)
	late := inTask(newMsg("lead", "coder", "late"), "t2")
	handle(t, s, in, late, false)
	n, err = in.SweepTask(context.Background(), "t2")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	n, err = in.SweepTask(context.Background(), "t2")
	require.NoError(t, err)
	assert.Zero(t, n, "sweeping again finds nothing")

	// The archive stays browsable.
	var boxes []driver.Box
	require.NoError(t, s.Browse(context.Background(), func(st driver.Stored) bool {
		if st.Message.ID == a.ID {
			boxes = append(boxes, st.Box)
		}
		return true
	}))
	assert.Equal(t, []driver.Box{driver.BoxArchive}, boxes)
}

func TestSweepTaskOfATaskAndItsUpdates(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "lead")
	upd := newMsg("coder", "lead", "")
	upd.Type, upd.Task = envelope.TypeTaskUpdate, &envelope.Task{ID: "odd/id", State: envelope.StateCompleted}
	handle(t, s, in, upd, false)
	n, err := in.SweepTask(context.Background(), "odd/id")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	dir := TaskDir("odd/id")
	assert.Regexp(t, `^x-[0-9a-f]{32}$`, dir, "an id that is no safe folder name is hashed")
	assert.Len(t, names(t, agentPath(s, "lead", "archive", "by-task", dir)), 1)
	assert.Equal(t, "task_1.x", TaskDir("task_1.x"))
}

func TestSweepTaskErrors(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "lead")
	_, err := in.SweepTask(context.Background(), "")
	assert.Error(t, err)
	require.NoError(t, in.Close())
	_, err = in.SweepTask(context.Background(), "t1")
	assert.ErrorIs(t, err, driver.ErrClosed)
}
