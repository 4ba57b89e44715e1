package mailbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A task still waits for its subtask after its agent restarts, even when
// the subtask's acceptance and its result both wait in the inbox: mid's
// answer to the acceptance is progress, and t1 ends with the answer to
// the result. (Taking the result in ends the record of the subtask before
// mid answers the acceptance, so the record alone cannot tell.)
func TestTaskWaitsForItsSubtaskAcrossARestart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	boss := e.peer(t, "boss")
	mid, coder := e.startAgent(t, "mid"), e.startAgent(t, "coder")
	ctx := context.Background()
	sub, _ := chainOf(t, e, mid, coder)
	_, err := mid.FinishTask(ctx, "t1", envelope.StateCompleted, "I asked coder", "", nil)
	require.NoError(t, err)
	boss.expectUpdate(t, "t1", envelope.StateWorking)

	// mid stops before it answers coder's acceptance; coder finishes.
	stop, cancel := context.WithTimeout(ctx, testkit.WaitLimit)
	defer cancel()
	require.NoError(t, mid.Stop(stop))
	_, err = coder.FinishTask(ctx, sub.Task.ID, envelope.StateCompleted, "1 3 5 9", "", nil)
	require.NoError(t, err, "coder's result is in mid's inbox when it returns")

	mid = e.startAgent(t, "mid")
	var accepted, result *bus.InboundMessage
	for accepted == nil || result == nil {
		in := mid.take(t)
		m := metaOf(t, in)
		switch {
		case m.Task != nil && m.Task.ID == sub.Task.ID && m.Task.State == envelope.StateAccepted:
			accepted = &in
		case m.Task != nil && m.Task.ID == sub.Task.ID && m.Task.State == envelope.StateCompleted:
			result = &in
		}
	}
	require.NoError(t, mid.Send(ctx, bus.OutboundMessage{Channel: accepted.Channel, ChatID: accepted.ChatID,
		Content: "coder is on it", Metadata: accepted.Metadata}))
	progress := boss.expectUpdate(t, "t1", envelope.StateWorking)
	assert.Equal(t, "coder is on it", progress.Text(), "the subtask still runs for mid: progress")
	require.NoError(t, mid.Send(ctx, bus.OutboundMessage{Channel: result.Channel, ChatID: result.ChatID,
		Content: "coder finished: 1 3 5 9", Metadata: result.Metadata}))
	done := boss.expectUpdate(t, "t1", envelope.StateCompleted)
	assert.Equal(t, "coder finished: 1 3 5 9", done.Text())
}
