package mailbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/config"
)

func TestDefaultConfigIsSeeds(t *testing.T) {
	cfg := mailbox.DefaultConfig()
	assert.Equal(t, []string{"*"}, cfg.AllowFrom)
	assert.Equal(t, 3, cfg.MaxConcurrentTasks)
	assert.EqualValues(t, 5, cfg.PollInterval)
	assert.Equal(t, "~/.nanobot/mailboxes", cfg.MailboxesRoot)
	assert.EqualValues(t, 5, cfg.HeartbeatInterval)
	assert.EqualValues(t, 30, cfg.OfflineAfter)
	assert.Equal(t, 3, cfg.DefaultTTL)
	assert.EqualValues(t, 1<<20, cfg.MaxMessageBytes)
	assert.Equal(t, "fs", cfg.Backend)
	assert.ErrorContains(t, cfg.Validate("channels.mailbox"), "channels.mailbox.agentId: required")
	cfg.AgentID = "coder"
	assert.NoError(t, cfg.Validate("channels.mailbox"))
}

func TestConfigValidateNamesEveryBadKey(t *testing.T) {
	cfg := mailbox.Config{AgentID: "a b", Backend: "carrier-pigeon"}
	err := cfg.Validate("channels.mailbox")
	require.Error(t, err)
	for _, key := range []string{"agentId", "maxConcurrentTasks", "pollInterval", "heartbeatInterval",
		"taskTimeout", "offlineAfter", "defaultTtl", "maxMessageBytes", "maxThreadHops", "mailboxesRoot",
		"backend"} {
		assert.Contains(t, err.Error(), "channels.mailbox."+key)
	}
	assert.Contains(t, err.Error(), "forgotten import?")
}

func TestFactoryDecodesSection(t *testing.T) {
	f, err := channels.Lookup("mailbox")
	require.NoError(t, err, "the mailbox channel type is registered")
	root := t.TempDir() + "/mailboxes"
	section := config.Section{Path: "channels.mailbox", Raw: map[string]any{
		"enabled": true, "agentId": "coder", "capabilities": []any{"code_write"},
		"allowFrom": []any{"researcher"}, "maxConcurrentTasks": 2.0, "pollInterval": 1.5,
		"mailboxesRoot": root, "fsync": false,
	}}
	ch, err := f(section, channels.Deps{Bus: bus.New(1)})
	require.NoError(t, err)
	mb := ch.(*mailbox.Channel)
	cfg := mb.Config()
	assert.Equal(t, "coder", cfg.AgentID)
	assert.Equal(t, []string{"code_write"}, cfg.Capabilities)
	assert.Equal(t, []string{"researcher"}, cfg.AllowFrom)
	assert.Equal(t, []string{"researcher"}, mb.AllowFrom())
	assert.Equal(t, 2, cfg.MaxConcurrentTasks)
	assert.Equal(t, 1.5, cfg.PollInterval)
	assert.EqualValues(t, 30, cfg.OfflineAfter, "unset keys keep their defaults")
	require.NoError(t, mb.Start(context.Background()))
	require.NoError(t, mb.Stop(context.Background()))

	section.Raw["maxConcurrentTasks"] = 0.0
	_, err = mailbox.DecodeConfig(section)
	assert.ErrorContains(t, err, "channels.mailbox.maxConcurrentTasks")
	section.Raw["bogus"] = 1.0
	_, err = mailbox.DecodeConfig(section)
	assert.ErrorContains(t, err, "bogus")
}

func TestUnknownBackend(t *testing.T) {
	cfg := mailbox.DefaultConfig()
	cfg.AgentID, cfg.Backend = "a", "nope"
	err := cfg.Validate("channels.mailbox")
	assert.ErrorContains(t, err, `channels.mailbox.backend: unknown backend "nope"`)
	assert.ErrorContains(t, err, "forgotten import?")
	_, err = store.Open("nope", cfg.StoreConfig())
	assert.ErrorContains(t, err, `unknown mailbox backend "nope"`)
	assert.Panics(t, func() {
		store.Register("fs", func(store.Config) (driver.Backend, error) { return nil, nil })
	}, "a duplicate")
}

// TestBackendSectionGoesToTheBackend: channels.mailbox.nats is the nats
// backend's own section, decoded by it (with its key paths), not by the
// channel; a backend section that is no object is refused.
func TestBackendSectionGoesToTheBackend(t *testing.T) {
	section := config.Section{Path: "channels.mailbox", Raw: map[string]any{"agentId": "a", "backend": "nats",
		"nats": map[string]any{"url": "nats://127.0.0.1:1", "ackWait": 0}}}
	cfg, err := mailbox.DecodeConfig(section)
	require.NoError(t, err)
	sc := cfg.StoreConfig()
	assert.Equal(t, "channels.mailbox.nats", sc.Section.Path)
	assert.Equal(t, "nats://127.0.0.1:1", sc.Section.Raw["url"])
	_, err = store.Open(cfg.Backend, sc)
	assert.ErrorContains(t, err, "channels.mailbox.nats.ackWait")

	section.Raw["nats"] = "nats://x"
	_, err = mailbox.DecodeConfig(section)
	assert.ErrorContains(t, err, "channels.mailbox.nats: want an object")

	fsCfg := mailbox.DefaultConfig()
	fsCfg.AgentID = "a"
	fsCfg.Stores = map[string]config.Section{"fs": {Path: "channels.mailbox.fs", Raw: map[string]any{"x": 1}}}
	_, err = store.Open("fs", fsCfg.StoreConfig())
	assert.ErrorContains(t, err, "channels.mailbox.fs: the folder store has no settings of its own")
}
