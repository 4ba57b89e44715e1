package channels_test

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

// loadChannels loads a config whose channels section is the JSON given.
func loadChannels(t *testing.T, channelsJSON string) *config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"channels": `+channelsJSON+`}`), 0o600))
	cfg, err := config.Load(config.LoadOptions{Path: path})
	require.NoError(t, err)
	return cfg
}

// statuses returns what cfg's report says of each key path.
func statuses(cfg *config.Config) map[string]string {
	out := map[string]string{}
	for _, e := range cfg.Report.Entries() {
		out[e.Path] = e.Status.String() + " " + e.Reason
		if e.Err != nil {
			out[e.Path] = e.Status.String() + " " + e.Err.Msg
		}
	}
	return out
}

func TestManagerBuildSkipsNanobotChannels(t *testing.T) {
	t.Parallel()
	cfg := loadChannels(t, `{"alpha": {"enabled": true}, "telegram": {"enabled": true, "token": "x"},
		"slack": {"enabled": true}, "qq": {"enabled": false}, "gone": {"enabled": false}}`)
	reg := channels.NewRegistry()
	reg.Register("alpha", fakeFactory("alpha", nil))
	var logs bytes.Buffer
	m := channels.NewManager(bus.New(1), channels.ManagerConfig{Logger: slog.New(slog.NewTextHandler(&logs, nil))})

	require.NoError(t, m.Build(reg, cfg))
	assert.Equal(t, []string{"alpha"}, m.Names())
	assert.Equal(t, []string{"slack", "telegram"}, m.Skipped())
	assert.Contains(t, logs.String(), `level=WARN msg="skipped enabled channels of types nanobot has and this build does not" channels="[slack telegram]" types=[alpha]`)
	got := statuses(cfg)
	for _, name := range []string{"telegram", "slack", "qq", "gone"} {
		assert.Equal(t, "ignored "+config.ReasonChannelType, got["channels."+name], name)
	}
	assert.Equal(t, "used ", got["channels.alpha.enabled"])
}

func TestManagerBuildUnknownTypeSuggests(t *testing.T) {
	t.Parallel()
	cfg := loadChannels(t, `{"telegramm": {"enabled": true}}`)
	m := channels.NewManager(bus.New(1), channels.ManagerConfig{})
	err := m.Build(channels.NewRegistry(), cfg)
	assert.EqualError(t, err, `channels.telegramm: unknown channel type "telegramm" (forgotten import?); did you mean "telegram"?`)
}

func TestRegistryCheckConfig(t *testing.T) {
	t.Parallel()
	cfg := loadChannels(t, `{"alpha": {"enabled": false, "bogus": 1}, "beta": {"enabled": true},
		"telegram": {"enabled": true}, "nope": {"enabled": true}}`)
	reg := channels.NewRegistry()
	reg.Register("alpha", fakeFactory("alpha", nil))
	reg.Register("beta", fakeFactory("beta", nil))
	reg.RegisterChecker("alpha", func(s config.Section) error { return s.Decode(&fakeSection{}) })
	reg.CheckConfig(cfg)

	got := statuses(cfg)
	assert.Equal(t, "error unknown key", got["channels.alpha.bogus"], "checked, though disabled")
	assert.Equal(t, "used ", got["channels.beta"], "no checker: used, unchecked")
	assert.Equal(t, "ignored "+config.ReasonChannelType, got["channels.telegram"])
	assert.Equal(t, `error unknown channel type "nope" (forgotten import?)`, got["channels.nope"])
	assert.Error(t, cfg.Report.Err())

	ok, err := reg.Check("beta", cfg.Channels["beta"])
	assert.False(t, ok)
	assert.NoError(t, err)
	assert.Panics(t, func() { reg.RegisterChecker("alpha", func(config.Section) error { return nil }) })
	assert.Panics(t, func() { reg.RegisterChecker("", nil) })
}
