package ledger_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func pending(id, to string, due time.Time) view.PendingReply {
	d := envelope.NewTime(due)
	return view.PendingReply{MessageID: id, From: "critic", To: to, SentAt: envelope.NewTime(due.Add(-time.Hour)), Due: &d}
}

func TestLedgerAwaitedPersistAndComeDue(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	st := store.New(memstore.NewHub().Open(memstore.Options{}), nil)
	l, err := ledger.LoadReplies(ctx, st, "critic")
	require.NoError(t, err)
	now := time.Now()
	require.NoError(t, l.Await(ctx, pending("q1", "executor", now.Add(time.Hour))))
	require.NoError(t, l.Await(ctx, pending("q2", "executor", now.Add(time.Minute))))
	testkit.Closed(t, l.Changed(), "a poke")
	next, ok := l.NextDue()
	require.True(t, ok)
	assert.Equal(t, "q2", next.MessageID)
	require.NoError(t, l.MarkNotified(ctx, "q2"))
	next, _ = l.NextDue()
	assert.Equal(t, "q1", next.MessageID, "a notified request is not due again")

	again, err := ledger.LoadReplies(ctx, st, "critic")
	require.NoError(t, err)
	assert.Len(t, again.Snapshot("").Awaited, 2, "a restart keeps what is awaited")
	_, ok = again.Answered(ctx, "q1", "someone-else")
	assert.False(t, ok, "only the agent asked answers")
	p, ok := again.Answered(ctx, "q1", "executor")
	require.True(t, ok)
	assert.Equal(t, "q1", p.MessageID)
	again.Forget(ctx, "q2")
	third, err := ledger.LoadReplies(ctx, st, "critic")
	require.NoError(t, err)
	assert.Empty(t, third.Snapshot("").Awaited)
	assert.Contains(t, ledger.ReplyOverdueNotice(pending("q3", "executor", now)), "executor has not replied to your request (message q3")
}

func TestLedgerHeldUntilReleased(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	l, err := ledger.LoadReplies(ctx, store.New(memstore.NewHub().Open(memstore.Options{}), nil), "executor")
	require.NoError(t, err)
	m := &envelope.Message{ID: "q1", From: "critic", To: "executor", ExpectsReply: true, TaskID: "t1",
		Timestamp: envelope.NewTime(time.Now())}
	l.Hold(&store.Delivery{Message: m})
	h, ok := l.HeldRequest("q1")
	require.True(t, ok)
	assert.Equal(t, "critic", h.Reply.From)
	assert.Len(t, l.Snapshot("t1").Owed, 1)
	assert.Empty(t, l.Snapshot("t2").Owed)
	_, ok = l.Release("q1", "someone-else")
	assert.False(t, ok, "a reply to another agent releases nothing")
	_, ok = l.Release("q1", "critic")
	assert.True(t, ok)
	_, ok = l.HeldRequest("q1")
	assert.False(t, ok)
}

func TestLedgerCorruptRecordIsAnError(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	st := store.New(memstore.NewHub().Open(memstore.Options{}), nil)
	require.NoError(t, st.SaveState(ctx, "critic", ledger.RepliesKey, []byte("[")))
	_, err := ledger.LoadReplies(ctx, st, "critic")
	assert.ErrorContains(t, err, "corrupt record")
}
