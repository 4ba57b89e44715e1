package mailbox_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
)

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
