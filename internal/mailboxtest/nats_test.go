package mailboxtest_test

import (
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/natstest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestTaskWithoutHistory: with "history": false a task runs to its end on
// both sides and neither agent warns about the archive the store does not
// keep (ending a task sweeps its messages when the store can).
func TestTaskWithoutHistory(t *testing.T) {
	ts := natstest.Start(t, "")
	keyDir := t.TempDir()
	start := func(id string) (*mailbox.Channel, *bus.Bus, *testkit.Buffer) {
		var log testkit.Buffer
		cfg := mailbox.DefaultConfig()
		cfg.Enabled, cfg.AgentID, cfg.Backend = true, id, natsstore.BackendName
		cfg.KeyFile = filepath.Join(keyDir, id+".nk")
		cfg.Stores = natsSection(map[string]any{"url": ts.URL(), "history": false})
		b := bus.New(16)
		ch, err := mailbox.New(cfg, b, mailbox.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
		require.NoError(t, err)
		require.NoError(t, ch.Start(testkit.Ctx(t)))
		return ch, b, &log
	}
	alice, aliceBus, aliceLog := start("alice")
	bob, bobBus, bobLog := start("bob")
	_, err := alice.Post(testkit.Ctx(t), route.Request{To: "bob", Type: envelope.TypeTask, Text: "sort 2 1"})
	require.NoError(t, err)
	task, err := bobBus.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	require.NoError(t, bob.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: mailbox.ChannelName,
		ChatID: "alice", Content: "1 2", Metadata: task.Metadata}))
	for {
		in, err := aliceBus.ConsumeInbound(testkit.Ctx(t))
		require.NoError(t, err)
		if m, ok := meta.Of(in.Metadata); ok && m.Task != nil && m.Task.State == envelope.StateCompleted {
			break
		}
	}
	require.NoError(t, bob.Stop(testkit.Ctx(t)))
	require.NoError(t, alice.Stop(testkit.Ctx(t)))
	for who, log := range map[string]*testkit.Buffer{"alice": aliceLog, "bob": bobLog} {
		assert.NotContains(t, log.String(), "level=WARN", who)
	}
}

// TestChannelsOnTheNATSBackendFromConfig: two mailbox channels configured
// with backend "nats" (the registration of this package) talk through an
// embedded server, through the store registry.
func TestChannelsOnTheNATSBackendFromConfig(t *testing.T) {
	ts := natstest.Start(t, "")
	keyDir := t.TempDir()
	start := func(id string) (*mailbox.Channel, *bus.Bus) {
		cfg := mailbox.DefaultConfig()
		cfg.AgentID, cfg.Backend = id, natsstore.BackendName
		cfg.KeyFile = filepath.Join(keyDir, id+".nk")
		cfg.Stores = natsSection(map[string]any{"url": ts.URL()})
		b := bus.New(16)
		ch, err := mailbox.New(cfg, b, mailbox.Options{})
		require.NoError(t, err)
		require.NoError(t, ch.Start(testkit.Ctx(t)))
		t.Cleanup(func() { ch.Stop(testkit.Ctx(t)) })
		return ch, b
	}
	alice, _ := start("alice")
	_, bobBus := start("bob")
	_, err := alice.Post(testkit.Ctx(t), route.Request{To: "bob", Text: "over NATS"})
	require.NoError(t, err)
	in, err := bobBus.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, "over NATS", in.Content)
	assert.Equal(t, "alice", in.SenderID)

}

// natsSection is the channels.mailbox.nats section raw, as DecodeConfig
// keeps it.
func natsSection(raw map[string]any) map[string]config.Section {
	return map[string]config.Section{natsstore.BackendName: {Path: natsstore.ConfigPath, Raw: raw}}
}
