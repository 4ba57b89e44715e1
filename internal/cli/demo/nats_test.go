package demo

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore" // registers the backend "nats"
	"github.com/switchboard-dev/switchboard/internal/natstest"
)

// The transcript on NATS is read back from the store (its history): each
// message once, priority messages included, in time order, wherever it is
// now (handled or still waiting); messages stamped before the demo began
// (another run's, on a server named by --nats-url) are left out.
func TestDemoMailOnNATS(t *testing.T) {
	t.Parallel()
	url := natstest.Start(t, "").URL()
	at := time.Now().UTC().Truncate(time.Millisecond)
	b := &demoBackend{kind: demoNATS, url: url, since: at}
	st, err := b.open()
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })

	old := &envelope.Message{ID: envelope.NewID(), From: "researcher", To: "coder", Type: envelope.TypeMessage,
		Timestamp: envelope.NewTime(at.Add(-time.Hour)), TTL: 2, Trace: []string{"researcher"}}
	old.Content.Parts = []envelope.Part{envelope.TextPart("an earlier run")}
	const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	task := &envelope.Message{ID: envelope.NewID(), From: "researcher", To: "coder", Type: envelope.TypeTask,
		Timestamp: envelope.NewTime(at), TTL: 2, Trace: []string{"researcher"},
		Task: &envelope.Task{ID: "t1", State: envelope.StatePending}, Traceparent: traceparent}
	task.Content.Parts = []envelope.Part{envelope.TextPart("sort 5 3 9 1")}
	update := &envelope.Message{ID: envelope.NewID(), From: "coder", To: "researcher", Type: envelope.TypeTaskUpdate,
		Timestamp: envelope.NewTime(at.Add(time.Millisecond)), TTL: 2, Trace: []string{"researcher"}, Priority: 2,
		Task: &envelope.Task{ID: "t1", State: envelope.StateRejected, Reason: "over capacity"}}
	ctx := t.Context()
	for _, m := range []*envelope.Message{old, task, update} {
		require.NoError(t, st.Deliver(ctx, m))
	}
	in, err := st.OpenInbox(ctx, "coder") // the task is handled, the update still waits
	require.NoError(t, err)
	defer in.Close()
	for range 2 {
		d, err := in.Next(ctx)
		require.NoError(t, err)
		require.NoError(t, in.Ack(ctx, d))
	}

	got, err := b.mail(ctx)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, demoLine{at: at, who: "researcher → coder", via: "mailbox task", text: "sort 5 3 9 1",
		id: task.ID, traceparent: traceparent}, got[0], "with the trace context, for --observe")
	assert.Equal(t, demoLine{at: at.Add(time.Millisecond), who: "coder → researcher", via: "mailbox task_update rejected",
		text: "reason: over capacity", id: update.ID}, got[1], "a priority message")
}

func TestPingNATS(t *testing.T) {
	t.Parallel()
	require.NoError(t, pingNATS(natstest.Start(t, "").URL()))
	assert.Error(t, pingNATS("nats://127.0.0.1:1"), "nothing listens there")
}
