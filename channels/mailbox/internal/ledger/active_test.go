package ledger_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestActiveDeadlineFiresOnTheClock(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Now())
	a := ledger.NewActive(clk)
	expired := make(chan string, 2)
	m := meta.Meta{MessageID: "m1", From: "boss", Task: &envelope.Task{ID: "t1"}}
	a.Add("t1", m, &store.Delivery{}, clk.Now().Add(time.Minute), func(id string) { expired <- id })
	a.Add("t2", m, &store.Delivery{}, clk.Now().Add(time.Hour), func(id string) { expired <- id })
	assert.True(t, a.Has("t1"))
	assert.Equal(t, 2, a.Len())
	assert.Equal(t, []string{"t1", "t2"}, a.IDs())
	clk.Add(time.Minute)
	assert.Equal(t, "t1", testkit.Recv(t, expired, "t1's deadline"))

	_, ok := a.Take("t2", "someone-else")
	assert.False(t, ok, "only the delegator ends a task from outside")
	got, ok := a.Take("t2", "boss")
	require.True(t, ok)
	assert.Equal(t, "m1", got.Meta.MessageID)
	clk.Add(2 * time.Hour)
	select {
	case id := <-expired:
		t.Fatalf("%s expired after it was taken", id)
	default:
	}
	assert.Len(t, a.All(""), 1, "t1 stays until its expiry handler takes it")
	a.Clear()
	assert.Zero(t, a.Len())
}

func TestDelegatedPersistsAcrossLoads(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	st := store.New(memstore.NewHub().Open(memstore.Options{}), nil)
	d, err := ledger.LoadDelegated(ctx, st, "boss")
	require.NoError(t, err)
	soon, later := envelope.NewTime(time.Now().Add(time.Minute)), envelope.NewTime(time.Now().Add(time.Hour))
	cb := &envelope.Callback{Channel: "feishu", ChatID: "u1"}
	require.NoError(t, d.Add(ctx, ledger.Record{TaskID: "t1", MessageID: "m1", To: "coder", Callback: cb, Deadline: &later,
		State: envelope.StatePending}))
	require.NoError(t, d.Add(ctx, ledger.Record{TaskID: "t2", MessageID: "m2", To: "coder", Deadline: &soon}))
	select {
	case <-d.Changed():
	default:
		t.Fatal("adding a task does not poke the deadline watcher")
	}
	next, ok := d.NextDeadline()
	require.True(t, ok)
	assert.Equal(t, "t2", next.TaskID)

	again, err := ledger.LoadDelegated(ctx, st, "boss")
	require.NoError(t, err)
	rec, ok := again.Lookup("t1", "coder")
	require.True(t, ok, "a restart keeps the callback")
	assert.Equal(t, cb, rec.Callback)
	_, ok = again.Lookup("t1", "mallory")
	assert.False(t, ok, "an update from an agent the task was not sent to is not routed")
	_, ok = again.LookupMessage("m2", "coder")
	assert.True(t, ok)

	require.NoError(t, again.SetState(ctx, "t1", envelope.StateWorking))
	require.NoError(t, again.SetState(ctx, "t2", envelope.StateCompleted))
	assert.Len(t, again.List(), 1, "a terminal state drops the record")
	again.Remove(ctx, "t1")
	third, err := ledger.LoadDelegated(ctx, st, "boss")
	require.NoError(t, err)
	assert.Empty(t, third.List())
	assert.Contains(t, ledger.TaskOverdueNotice(ledger.Record{TaskID: "t9", To: "coder", Deadline: &soon}),
		"task t9 delegated to coder got no result by its deadline")
}

func TestDelegatedCorruptRecordIsAnError(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	st := store.New(memstore.NewHub().Open(memstore.Options{}), nil)
	require.NoError(t, st.SaveState(ctx, "boss", ledger.DelegatedKey, []byte("{")))
	_, err := ledger.LoadDelegated(ctx, st, "boss")
	assert.ErrorContains(t, err, `load delegated tasks of "boss": corrupt record`)
}

func TestSweepWithoutTheAbility(t *testing.T) {
	t.Parallel()
	in, err := store.New(memstore.NewHub().Open(memstore.Options{}), nil).OpenInbox(context.Background(), "a")
	require.NoError(t, err)
	defer in.Close()
	ledger.Sweep(context.Background(), in, "", nil) // no task id: nothing to do, no logger needed
}
