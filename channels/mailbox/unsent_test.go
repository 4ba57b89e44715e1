package mailbox_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// fullDisk is the test's store whose deliveries from one agent fail, as
// on a full disk, while broken is set; the rest of the store works.
type fullDisk struct {
	*hookedStore
	from   string
	broken atomic.Bool
}

// Deliver implements driver.Deliverer.
func (f *fullDisk) Deliver(ctx context.Context, m *envelope.Message) error {
	if f.broken.Load() && m.From == f.from {
		return errors.New("write inbox file: no space left on device")
	}
	return f.hookedStore.Deliver(ctx, m)
}

// startOnFullDisk starts agent id on the tree through a store whose
// deliveries from id fail while the returned fullDisk is broken.
func (e *env) startOnFullDisk(t *testing.T, disk *fullDisk) *member {
	t.Helper()
	b := bus.New(64)
	ch, err := mailbox.New(e.config(disk.from), b, mailbox.Options{Backend: store.New(disk, nil)})
	require.NoError(t, err)
	require.NoError(t, ch.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
		defer cancel()
		_ = ch.Stop(ctx)
		b.Close()
	})
	return &member{Channel: ch, bus: b}
}

// An answer the store does not take (a full disk) is not an error of the
// turn: it is kept and delivered again with backoff, and the request it
// answers stays claimed until it goes; then the request is archived.
func TestUnsentAnswerIsSentOnceTheStoreTakesIt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	disk := &fullDisk{hookedStore: e.store, from: "coder"}
	a := e.startOnFullDisk(t, disk)
	boss := e.peer(t, "boss")
	req := msg("boss", "coder", envelope.TypeMessage, "why?")
	req.ExpectsReply = true
	e.deliver(t, req)
	in := a.take(t)

	disk.broken.Store(true)
	require.NoError(t, a.Send(context.Background(), bus.OutboundMessage{Channel: mailbox.ChannelName,
		ChatID: "boss", Content: "because", Metadata: in.Metadata}), "kept, to be sent again")
	in.Done()
	assert.Equal(t, store.BoxClaimed, e.boxOf(t, "coder", req.ID), "not archived: its answer has not gone")
	require.Len(t, a.PendingReplies("").Owed, 1, "still owed")

	disk.broken.Store(false)
	reply := boss.expect(t, "the answer", func(m *envelope.Message) bool { return m.ReplyTo == req.ID })
	assert.Equal(t, "because", reply.Text())
	e.waitEvent(t, store.EventProcessed, req.ID)
	assert.Empty(t, a.PendingReplies("").Owed)
}

// A task whose final update the store does not take is not archived as
// done: its request stays claimed, Stop reports the answer still owed,
// and the next start delivers the update as it was (not a second model
// call: the task is not handed to the agent again), then archives the
// task.
func TestUnsentFinalUpdateOutlivesARestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	disk := &fullDisk{hookedStore: e.store, from: "coder"}
	a := e.startOnFullDisk(t, disk)
	boss := e.peer(t, "boss")
	req := task("boss", "coder", "t1", "write sort")
	e.deliver(t, req)
	boss.expectUpdate(t, "t1", envelope.StateAccepted)
	a.take(t)

	disk.broken.Store(true)
	_, err := a.FinishTask(context.Background(), "t1", envelope.StateCompleted, "func sort() {}", "", nil)
	require.NoError(t, err, "kept, to be sent again")
	assert.Equal(t, store.BoxClaimed, e.boxOf(t, "coder", req.ID), "not archived as done")
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	err = a.Stop(ctx)
	require.ErrorIs(t, err, mailbox.ErrUnsent, "a stop says what is still owed")
	assert.Contains(t, err.Error(), "1 answer(s)")
	assert.Contains(t, err.Error(), "no space left on device")

	disk.broken.Store(false)
	a = e.startOnFullDisk(t, disk)
	done := boss.expectUpdate(t, "t1", envelope.StateCompleted)
	assert.Equal(t, "func sort() {}", done.Text())
	assert.Equal(t, req.ID, done.ReplyTo)
	e.waitEvent(t, store.EventProcessed, req.ID)
	e.deliver(t, task("boss", "coder", "t2", "next"))
	assert.Equal(t, "next", a.take(t).Content, "t1 was not handed to the agent again")
}
