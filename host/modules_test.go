package host_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/agentloop"
	_ "github.com/switchboard-dev/switchboard/agentloop/provider/anthropic" // the providers these tests reach
	_ "github.com/switchboard-dev/switchboard/agentloop/provider/openai"
	_ "github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox" // the channel type "mailbox" and its store "fs"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
)

// host builds a provider with the factory its kind's package registered:
// a kind the program did not import is an error naming the import, under
// the key that chose it; the kind's own error is prefixed the same way.
func TestProviderByKind(t *testing.T) {
	t.Parallel()
	cfg := config.Default()
	cfg.Agents.Defaults.Provider, cfg.Agents.Defaults.Model = "deepseek", "deepseek-chat"
	cfg.Providers = allKeys("deepseek")

	_, _, err := host.NewProvider(cfg, host.Options{Environ: []string{}, Providers: agentloop.NewProviderRegistry()})
	require.ErrorIs(t, err, agentloop.ErrProviderNotLinked)
	assert.EqualError(t, err, `providers.deepseek: provider kind "openai" is not in this build (forgotten import of github.com/switchboard-dev/switchboard/agentloop/provider/openai?)`)
	_, _, err = host.NewProvider(config.Default(), host.Options{Environ: []string{}, Providers: agentloop.NewProviderRegistry()})
	assert.EqualError(t, err, `agents.defaults.provider: provider kind "scripted" is not in this build (forgotten import of github.com/switchboard-dev/switchboard/agentloop/provider/scripted?)`)

	reg := agentloop.NewProviderRegistry()
	var got agentloop.ProviderSettings
	reg.Register("openai", func(s agentloop.ProviderSettings) (agent.Provider, error) {
		got = s
		return nil, assert.AnError
	})
	_, _, err = host.NewProvider(cfg, host.Options{Environ: []string{}, Providers: reg})
	require.ErrorIs(t, err, assert.AnError)
	assert.Equal(t, "providers.deepseek: "+assert.AnError.Error(), err.Error())
	assert.Equal(t, agentloop.ProviderSettings{Name: "deepseek", Config: cfg.Providers["deepseek"], APIKey: cfg.Providers["deepseek"].APIKey,
		APIBase: "https://api.deepseek.com", Model: "deepseek-chat"}, got)
}
