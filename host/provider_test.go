package host_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop/provider/openai"
	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
)

func TestNewProvider(t *testing.T) {
	cfg := config.Default()
	p, name, err := host.NewProvider(cfg, nil)
	require.NoError(t, err)
	assert.IsType(t, &scripted.Provider{}, p)
	assert.Equal(t, "scripted", name)

	cfg.Agents.Defaults.Provider, cfg.Agents.Defaults.Model = "openai", "gpt-test"
	_, _, err = host.NewProvider(cfg, []string{"OPENAI_API_KEY=old", "OPENAI_API_KEY="})
	assert.ErrorContains(t, err, "providers.openai.apiKey: required", "the last setting wins")
	p, name, err = host.NewProvider(cfg, []string{"OPENAI_API_KEY=sk-test"})
	require.NoError(t, err, "the key may come from the environment")
	assert.IsType(t, &openai.Provider{}, p)
	assert.Equal(t, "openai", name)

	cfg.Agents.Defaults.Provider = "vllm"
	cfg.Providers["vllm"] = config.ProviderConfig{APIBase: "http://127.0.0.1:8000/v1"}
	p, name, err = host.NewProvider(cfg, nil)
	require.NoError(t, err, "a local server needs no key; the model comes from agents.defaults")
	assert.IsType(t, &openai.Provider{}, p)
	assert.Equal(t, "vllm", name)

	cfg.Agents.Defaults.Provider = "other"
	_, _, err = host.NewProvider(cfg, nil)
	assert.EqualError(t, err, `agents.defaults.provider: unknown provider "other": want "scripted" or a name under providers (configured: scripted, vllm)`)
}
