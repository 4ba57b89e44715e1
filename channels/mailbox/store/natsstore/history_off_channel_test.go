package natsstore_test

import (
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
)

// TestTaskWithoutHistory: with "history": false a task runs to its end on
// both sides and neither agent warns about the archive the store does not
// keep (ending a task sweeps its messages when the store can).
func TestTaskWithoutHistory(t *testing.T) {
	ts := startServer(t, "")
	start := func(id string) (*mailbox.Channel, *bus.Bus, *logBuffer) {
		var log logBuffer
		cfg := mailbox.DefaultConfig()
		cfg.Enabled, cfg.AgentID, cfg.Backend = true, id, natsstore.BackendName
		cfg.NATS = map[string]any{"url": ts.url(), "history": false}
		b := bus.New(16)
		ch, err := mailbox.New(cfg, b, mailbox.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
		require.NoError(t, err)
		require.NoError(t, ch.Start(waitCtx(t)))
		return ch, b, &log
	}
	alice, aliceBus, aliceLog := start("alice")
	bob, bobBus, bobLog := start("bob")
	_, err := alice.Post(waitCtx(t), mailbox.Request{To: "bob", Type: envelope.TypeTask, Text: "sort 2 1"})
	require.NoError(t, err)
	task, err := bobBus.ConsumeInbound(waitCtx(t))
	require.NoError(t, err)
	require.NoError(t, bob.Send(waitCtx(t), bus.OutboundMessage{Channel: mailbox.ChannelName,
		ChatID: "alice", Content: "1 2", Metadata: task.Metadata}))
	for {
		in, err := aliceBus.ConsumeInbound(waitCtx(t))
		require.NoError(t, err)
		if m, ok := mailbox.MetaOf(in.Metadata); ok && m.Task != nil && m.Task.State == envelope.StateCompleted {
			break
		}
	}
	require.NoError(t, bob.Stop(waitCtx(t)))
	require.NoError(t, alice.Stop(waitCtx(t)))
	for who, log := range map[string]*logBuffer{"alice": aliceLog, "bob": bobLog} {
		assert.NotContains(t, log.String(), "level=WARN", who)
	}
}
