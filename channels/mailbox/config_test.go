package mailbox_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
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

func TestWorkConfigDecodesAndDefaults(t *testing.T) {
	t.Parallel()
	assert.EqualValues(t, 30, mailbox.DefaultConfig().AcceptTimeout)
	assert.Zero(t, mailbox.DefaultConfig().Budget, "no budget, no cap by default")
	cfg, err := mailbox.DecodeConfig(config.Section{Path: "channels.mailbox", Raw: map[string]any{
		"agentId": "coder", "acceptTimeout": 12.5,
		"budget": map[string]any{"taskTokens": 4000, "taskCost": 0.5, "dailyTokens": "100000",
			"inputPrice": 3, "outputPrice": 15},
	}})
	require.NoError(t, err)
	assert.False(t, cfg.Escalation.Enabled(), "no escalation by default: stuck work ends as before")
	assert.EqualValues(t, 12.5, cfg.AcceptTimeout)
	assert.Equal(t, mailbox.Budget{TaskTokens: 4000, TaskCost: 0.5, DailyTokens: 100000, InputPrice: 3, OutputPrice: 15},
		cfg.Budget)
}

func TestWorkConfigErrorsNameTheKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  map[string]any
		want string
	}{
		{"unknown budget key", map[string]any{"budget": map[string]any{"tokens": 5}}, "channels.mailbox.budget.tokens"},
		{"negative tokens", map[string]any{"budget": map[string]any{"taskTokens": -1}}, "channels.mailbox.budget.taskTokens: want 0 (none) or more"},
		{"negative cap", map[string]any{"budget": map[string]any{"dailyTokens": -1}}, "channels.mailbox.budget.dailyTokens"},
		{"cost without prices", map[string]any{"budget": map[string]any{"taskCost": 1}}, "channels.mailbox.budget.taskCost: a cost budget needs the model's prices"},
		{"accept timeout zero", map[string]any{"acceptTimeout": 0}, "channels.mailbox.acceptTimeout"},
		{"escalation to itself", map[string]any{"escalation": map[string]any{"levels": []any{"coder"}}},
			`channels.mailbox.escalation.levels[0]: "coder" is this agent`},
		{"escalation key unknown", map[string]any{"escalation": map[string]any{"level": []any{"lead"}}}, "channels.mailbox.escalation.level"},
		{"escalation timeouts", map[string]any{"escalation": map[string]any{"levels": []any{"lead"}, "timeouts": []any{1, 2}}},
			"channels.mailbox.escalation.timeouts: want one number of seconds per level (1), got 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw := map[string]any{"agentId": "coder"}
			for k, v := range tt.raw {
				raw[k] = v
			}
			_, err := mailbox.DecodeConfig(config.Section{Path: "channels.mailbox", Raw: raw})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// TestConfigLimitsKeys: the limits section and maxDeliver decode from
// camelCase keys over the defaults, and bad values name their key.
func TestConfigLimitsKeys(t *testing.T) {
	t.Parallel()
	cfg, err := mailbox.DecodeConfig(config.Section{Path: "channels.mailbox", Raw: map[string]any{
		"agentId": "coder", "maxDeliver": 3.0,
		"limits": map[string]any{
			"perEdge":      map[string]any{"rate": 2.0, "per": "second", "burst": 4.0},
			"perSender":    map[string]any{"rate": 0.0},
			"breaker":      map[string]any{"failures": 2.0, "window": 10.0, "coolDown": 5.0},
			"maxTaskDepth": 3.0,
		},
	}})
	require.NoError(t, err)
	assert.Equal(t, 3, cfg.MaxDeliver)
	assert.Equal(t, limits.Rate{Rate: 2, Per: "second", Burst: 4}, cfg.Limits.PerEdge)
	assert.Equal(t, "2/second, burst 4", cfg.Limits.PerEdge.String())
	assert.Equal(t, limits.DefaultConfig().PerAgent, cfg.Limits.PerAgent, "unset keys keep their defaults")
	assert.True(t, cfg.Limits.PerSender.Off(), "0 turns a limit off")
	assert.Equal(t, limits.Breaker{Failures: 2, Window: 10, CoolDown: 5}, cfg.Limits.Breaker)
	assert.Equal(t, 3, cfg.Limits.MaxTaskDepth)
	assert.Equal(t, 3, cfg.StoreConfig().MaxDeliver)

	def := mailbox.DefaultConfig()
	assert.Equal(t, 5, def.MaxDeliver)
	assert.Equal(t, limits.DefaultConfig(), def.Limits)

	for _, tt := range []struct {
		raw  map[string]any
		want string
	}{
		{map[string]any{"maxDeliver": 0.0}, "channels.mailbox.maxDeliver: want at least 1, got 0"},
		{map[string]any{"limits": map[string]any{"perEdge": map[string]any{"per": "day"}}},
			`channels.mailbox.limits.perEdge.per: want "second", "minute" or "hour", got "day"`},
		{map[string]any{"limits": map[string]any{"perAgent": map[string]any{"perMinute": 1.0}}}, "channels.mailbox.limits.perAgent.perMinute"},
		{map[string]any{"limits": map[string]any{"breaker": map[string]any{"coolDown": -1.0}}}, "channels.mailbox.limits.breaker.coolDown"},
	} {
		raw := map[string]any{"agentId": "coder"}
		for k, v := range tt.raw {
			raw[k] = v
		}
		_, err := mailbox.DecodeConfig(config.Section{Path: "channels.mailbox", Raw: raw})
		require.Error(t, err, tt.want)
		assert.Contains(t, err.Error(), tt.want)
	}
}

// TestConfigLimitsFromEnvironment: a limit set in the environment lands on
// its camelCase key, over the file.
func TestConfigLimitsFromEnvironment(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"channels": {"mailbox": {"agentId": "coder",
		"limits": {"perEdge": {"rate": 5, "burst": 2}}}}}`), 0o600))
	c, err := config.Load(config.LoadOptions{Path: path, Environ: []string{
		"NANOBOT_CHANNELS__MAILBOX__LIMITS__PER_EDGE__RATE=10",
		"NANOBOT_CHANNELS__MAILBOX__LIMITS__BREAKER__COOL_DOWN=7",
		"NANOBOT_CHANNELS__MAILBOX__MAX_DELIVER=2",
	}})
	require.NoError(t, err)
	s, ok := c.Section("mailbox")
	require.True(t, ok)
	cfg, err := mailbox.DecodeConfig(s)
	require.NoError(t, err)
	assert.Equal(t, limits.Rate{Rate: 10, Per: "minute", Burst: 2}, cfg.Limits.PerEdge)
	assert.EqualValues(t, 7, cfg.Limits.Breaker.CoolDown)
	assert.Equal(t, 2, cfg.MaxDeliver)
}

// TestConfigBoundsEveryDuration: every duration key refuses a value that
// would overflow a time.Duration (or panic a ticker) and one so small it
// keeps a core busy, with an error naming the key.
func TestConfigBoundsEveryDuration(t *testing.T) {
	t.Parallel()
	keys := map[string]func(*mailbox.Config) *float64{
		"pollInterval":      func(c *mailbox.Config) *float64 { return &c.PollInterval },
		"heartbeatInterval": func(c *mailbox.Config) *float64 { return &c.HeartbeatInterval },
		"offlineAfter":      func(c *mailbox.Config) *float64 { return &c.OfflineAfter },
		"taskTimeout":       func(c *mailbox.Config) *float64 { return &c.TaskTimeout },
		"replyTimeout":      func(c *mailbox.Config) *float64 { return &c.ReplyTimeout },
		"pruneInterval":     func(c *mailbox.Config) *float64 { return &c.PruneInterval },
		"orphanAfter":       func(c *mailbox.Config) *float64 { return &c.OrphanAfter },
		"processedMaxAge":   func(c *mailbox.Config) *float64 { return &c.ProcessedMaxAge },
		"archiveMaxAge":     func(c *mailbox.Config) *float64 { return &c.ArchiveMaxAge },
	}
	for name, field := range keys {
		for _, v := range []float64{1e10, 1e-9, math.NaN(), math.Inf(1)} {
			cfg := mailbox.DefaultConfig()
			cfg.AgentID = "coder"
			*field(&cfg) = v
			if name == "heartbeatInterval" && v < 1 {
				cfg.OfflineAfter = 30
			}
			err := cfg.Validate("channels.mailbox")
			require.Error(t, err, "%s = %v", name, v)
			assert.Contains(t, err.Error(), "channels.mailbox."+name+": want a number of seconds from ", "%s = %v", name, v)
		}
	}
	cfg := mailbox.DefaultConfig()
	cfg.AgentID = "coder"
	cfg.PollInterval, cfg.HeartbeatInterval, cfg.TaskTimeout = 0.01, 0.02, 0.001
	cfg.ProcessedMaxAge, cfg.ArchiveMaxAge = 0, 365*mailbox.Day
	assert.NoError(t, cfg.Validate("channels.mailbox"), "the bounds themselves, and 0 for no limit")
}
