package mailbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// The answer to a task canceled while its turn ran is dropped quietly:
// the delegator gets no final update of a task it canceled, and the
// sender of the answer no error (the turn's message is handled). An
// answer to a task that simply is not held is still an error.
func TestAnswerToACanceledTaskIsDropped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	boss := e.peer(t, "boss")
	req := task("boss", "coder", "t1", "work")
	e.deliver(t, req)
	boss.expectUpdate(t, "t1", envelope.StateAccepted)
	in := a.take(t) // the turn on t1, under way
	cancel := msg("boss", "coder", envelope.TypeTaskUpdate, "never mind")
	cancel.Task = &envelope.Task{ID: "t1", State: envelope.StateCanceled}
	e.deliver(t, cancel)
	e.waitEvent(t, store.EventProcessed, req.ID)
	assert.True(t, a.Canceled("t1"))
	assert.False(t, a.Canceled("t2"))

	ctx := context.Background()
	require.NoError(t, a.Send(ctx, bus.OutboundMessage{Channel: in.Channel, ChatID: in.ChatID, Content: "done anyway",
		Metadata: in.Metadata}), "the answer of a canceled task goes nowhere, without an error")
	_, err := a.FinishTask(ctx, "t9", envelope.StateCompleted, "x", "", nil)
	assert.ErrorIs(t, err, mailbox.ErrTaskNotActive, "a task never held is still an error")

	// The next message boss gets from coder is the acceptance of t2, not
	// an update of t1.
	e.deliver(t, task("boss", "coder", "t2", "next"))
	next := boss.expect(t, "the next update", func(m *envelope.Message) bool { return m.Type == envelope.TypeTaskUpdate })
	assert.Equal(t, "t2", next.Task.ID)
}
