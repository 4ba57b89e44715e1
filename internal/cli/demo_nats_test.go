package cli

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// The transcript on NATS: the tap sees what is published on the inbox
// subjects, keeps each message once (a retried publish comes again) and
// skips what is not a message.
func TestDemoTapSeesEachMessageOnce(t *testing.T) {
	srv, err := startDemoNATS(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	tap, err := newDemoTap(srv.ClientURL())
	require.NoError(t, err)
	t.Cleanup(tap.close)
	nc, err := nats.Connect(srv.ClientURL())
	require.NoError(t, err)
	t.Cleanup(nc.Close)

	at := time.Now().UTC().Truncate(time.Microsecond) // the wire's precision
	update := &envelope.Message{ID: envelope.NewID(), From: "coder", To: "researcher", Type: envelope.TypeTaskUpdate,
		Timestamp: envelope.NewTime(at.Add(time.Millisecond)), TTL: 2, Trace: []string{"researcher"},
		Task: &envelope.Task{ID: "t1", State: envelope.StateRejected, Reason: "over capacity"}}
	task := &envelope.Message{ID: envelope.NewID(), From: "researcher", To: "coder", Type: envelope.TypeTask,
		Timestamp: envelope.NewTime(at), TTL: 2, Trace: []string{"researcher"}, Task: &envelope.Task{ID: "t1", State: envelope.StatePending}}
	task.Content.Parts = []envelope.Part{envelope.TextPart("sort 5 3 9 1")}
	for _, m := range []*envelope.Message{update, task, task} {
		data, err := envelope.EncodeCompact(m)
		require.NoError(t, err)
		require.NoError(t, nc.Publish("mailbox."+m.To+".inbox."+m.From, data))
	}
	require.NoError(t, nc.Publish("mailbox.coder.inbox.x", []byte("not a message")))
	require.NoError(t, nc.Publish("mailbox.coder.dead", []byte("a dead letter is no conversation")))
	require.NoError(t, nc.Flush()) // the server has passed them on

	got, err := tap.lines()
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, demoLine{at: at, who: "researcher → coder", via: "mailbox task", text: "sort 5 3 9 1"}, got[0])
	assert.Equal(t, demoLine{at: at.Add(time.Millisecond), who: "coder → researcher", via: "mailbox task_update rejected",
		text: "reason: over capacity"}, got[1])
}
