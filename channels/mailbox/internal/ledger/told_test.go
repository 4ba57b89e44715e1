package ledger_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// update is a task_update of task t1 in state with text.
func update(id string, state envelope.TaskState, text string) *envelope.Message {
	m := &envelope.Message{ID: id, From: "coder", To: "boss", Type: envelope.TypeTaskUpdate,
		Task: &envelope.Task{ID: "t1", State: state}}
	if text != "" {
		m.Content.Parts = []envelope.Part{envelope.TextPart(text)}
	}
	return m
}

// A notice is told once: a second update saying the same (a worker that
// restarted and accepted again) is not, the same update handed over again
// is, one saying something else is; what was told outlives the process.
func TestNoticeToldOnce(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	hub := memstore.NewHub()
	st := store.New(hub.Open(memstore.Options{}), nil)
	d, err := ledger.LoadDelegated(ctx, st, "boss")
	require.NoError(t, err)
	require.NoError(t, d.Add(ctx, ledger.Record{TaskID: "t1", To: "coder", State: envelope.StatePending}))

	tell := func(d *ledger.Delegated, m *envelope.Message) bool {
		ok, err := d.Tell(ctx, "t1", ledger.NoticeKey(m), m.ID)
		require.NoError(t, err)
		return ok
	}
	assert.True(t, tell(d, update("u1", envelope.StateAccepted, "")))
	assert.True(t, tell(d, update("u1", envelope.StateAccepted, "")), "the same update, handed over again")
	assert.False(t, tell(d, update("u2", envelope.StateAccepted, "")), "accepted again after a restart")
	assert.True(t, tell(d, update("u3", envelope.StateWorking, "half way")))
	assert.True(t, tell(d, update("u4", envelope.StateWorking, "nearly done")), "news")
	assert.False(t, tell(d, update("u5", envelope.StateWorking, "half way")))

	again, err := ledger.LoadDelegated(ctx, st, "boss")
	require.NoError(t, err)
	assert.False(t, tell(again, update("u6", envelope.StateAccepted, "")), "remembered across a restart")
	assert.True(t, tell(again, update("u3", envelope.StateWorking, "half way")))
	ok, err := again.Tell(ctx, "gone", "accepted:x", "u7")
	require.NoError(t, err)
	assert.True(t, ok, "a task without a record is told")
}
