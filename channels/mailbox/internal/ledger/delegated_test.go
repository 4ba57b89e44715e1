package ledger_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestReofferGroup(t *testing.T) {
	t.Parallel()
	for via, want := range map[string][2]string{"any:sorting": {"any", "sorting"}, "cap:review": {"cap", "review"}} {
		kind, name, ok := ledger.Reoffer{Via: via}.Group()
		assert.True(t, ok, via)
		assert.Equal(t, want, [2]string{kind, name})
	}
	for _, via := range []string{"", "coder", "role:dev", "any:", "all"} {
		_, _, ok := ledger.Reoffer{Via: via}.Group()
		assert.False(t, ok, "%q names no group to offer the task to again", via)
	}
}

func TestUnacceptedAndWorkingTasks(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	st := store.New(memstore.NewHub().Open(memstore.Options{}), nil)
	d, err := ledger.LoadDelegated(ctx, st, "boss")
	require.NoError(t, err)
	_, ok := d.NextUnaccepted()
	assert.False(t, ok)
	t0 := time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)
	at := func(s int) envelope.Time { return envelope.NewTime(t0.Add(time.Duration(s) * time.Second)) }
	require.NoError(t, d.Add(ctx, ledger.Record{TaskID: "t1", To: "a", State: envelope.StatePending, SentAt: at(5),
		Reoffer: ledger.Reoffer{Via: "any:sorting", Parts: []envelope.Part{envelope.TextPart("sort 1")},
			Budget: &envelope.Budget{Tokens: 9}}}))
	select {
	case <-d.Sent():
	default:
		t.Fatal("a recorded task does not poke the acceptance watcher")
	}
	require.NoError(t, d.Add(ctx, ledger.Record{TaskID: "t2", To: "b", State: envelope.StatePending, SentAt: at(1)}))
	require.NoError(t, d.Add(ctx, ledger.Record{TaskID: "t3", To: "c", State: envelope.StateWorking, SentAt: at(0)}))
	require.NoError(t, d.Add(ctx, ledger.Record{TaskID: "t4", To: "d", State: envelope.StateAccepted, SentAt: at(2)}))

	next, ok := d.NextUnaccepted()
	require.True(t, ok)
	assert.Equal(t, "t2", next.TaskID, "the one sent longest ago")
	assert.Equal(t, t0.Add(31*time.Second), ledger.AcceptDue(next, 30*time.Second))
	require.NoError(t, d.Update(ctx, "t2", func(r *ledger.Record) { r.Noticed = true }))
	next, _ = d.NextUnaccepted()
	assert.Equal(t, "t1", next.TaskID, "a task reported once is not reported again")
	require.NoError(t, d.Update(ctx, "gone", func(r *ledger.Record) { r.Noticed = true }), "no record: nothing to do")

	var working []string
	for _, r := range d.Working() {
		working = append(working, r.TaskID)
	}
	assert.Equal(t, []string{"t3", "t4"}, working)

	again, err := ledger.LoadDelegated(ctx, st, "boss")
	require.NoError(t, err)
	rec, ok := again.Lookup("t1", "a")
	require.True(t, ok)
	assert.Equal(t, ledger.Reoffer{Via: "any:sorting", Parts: []envelope.Part{envelope.TextPart("sort 1")},
		Budget: &envelope.Budget{Tokens: 9}}, rec.Reoffer, "what it takes to send it again survives a restart")
	rec, _ = again.Lookup("t2", "b")
	assert.True(t, rec.Noticed)
}

// flakyState is a StateStore whose saves fail while broken is set.
type flakyState struct {
	store.StateStore
	broken bool
}

func (f *flakyState) SaveState(ctx context.Context, agent, key string, data []byte) error {
	if f.broken {
		return errors.New("disk full")
	}
	return f.StateStore.SaveState(ctx, agent, key, data)
}

func TestUpdateHoldsInMemoryWhenNotSaved(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	st := &flakyState{StateStore: store.New(memstore.NewHub().Open(memstore.Options{}), nil)}
	d, err := ledger.LoadDelegated(ctx, st, "boss")
	require.NoError(t, err)
	require.NoError(t, d.Add(ctx, ledger.Record{TaskID: "t1", To: "a", State: envelope.StatePending}))
	st.broken = true
	assert.ErrorContains(t, d.Update(ctx, "t1", func(r *ledger.Record) { r.Noticed = true }), "disk full")
	_, ok := d.NextUnaccepted()
	assert.False(t, ok, "the notice is not given twice by this process")
	st.broken = false
	require.NoError(t, d.SetState(ctx, "t1", envelope.StatePending))
	again, err := ledger.LoadDelegated(ctx, st, "boss")
	require.NoError(t, err)
	rec, _ := again.Lookup("t1", "a")
	assert.True(t, rec.Noticed, "saved with the next change")
}
