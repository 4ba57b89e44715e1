package catalog_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop/provider/catalog"
	"github.com/switchboard-dev/switchboard/config"
)

func TestLookupSpellings(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"dashscope_coding_plan", "dashscopeCodingPlan", "dashscope-coding-plan"} {
		s, ok := catalog.Lookup(name)
		require.True(t, ok, name)
		assert.Equal(t, "dashscope_coding_plan", s.Name)
	}
	_, ok := catalog.Lookup("nope")
	assert.False(t, ok)
	for _, s := range catalog.Specs {
		if s.Kind == catalog.OAuth || s.Name == "custom" || s.Name == "vllm" {
			assert.Empty(t, s.DefaultBase, s.Name)
			continue
		}
		assert.NotEmpty(t, s.DefaultBase, "%s: every provider with a key has its real endpoint", s.Name)
	}
}

func TestModelFor(t *testing.T) {
	t.Parallel()
	spec := func(n string) catalog.Spec { s, _ := catalog.Lookup(n); return s }
	assert.Equal(t, "claude-opus-4-5", spec("anthropic").ModelFor("anthropic/claude-opus-4-5"))
	assert.Equal(t, "claude-opus-4-5", spec("anthropic").ModelFor("claude-opus-4-5"))
	assert.Equal(t, "anthropic/claude-3", spec("openrouter").ModelFor("openrouter/anthropic/claude-3"))
	assert.Equal(t, "anthropic/claude-3", spec("openrouter").ModelFor("anthropic/claude-3"), "a gateway keeps org/model")
	assert.Equal(t, "claude-3", spec("aihubmix").ModelFor("anthropic/claude-3"))
	assert.Equal(t, "meta-llama/Llama-3-8B", spec("vllm").ModelFor("hosted_vllm/meta-llama/Llama-3-8B"))
	assert.Equal(t, "glm-4", spec("zhipu").ModelFor("zai/glm-4"))
}

// resolve runs Resolve on a config with the given defaults and providers.
func resolve(provider, model string, providers map[string]config.ProviderConfig, environ ...string) (catalog.Choice, error) {
	cfg := config.Default()
	cfg.Agents.Defaults.Provider, cfg.Agents.Defaults.Model = provider, model
	if providers != nil {
		cfg.Providers = providers
	}
	return catalog.Resolve(cfg, environ)
}

func key(k string) config.ProviderConfig { return config.ProviderConfig{APIKey: k} }

func TestResolveAuto(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		model     string
		providers map[string]config.ProviderConfig
		environ   []string
		want      string // provider chosen
		wantModel string
	}{
		{"prefix wins", "deepseek/deepseek-chat", map[string]config.ProviderConfig{"deepseek": key("d"), "openrouter": key("o")}, nil, "deepseek", "deepseek-chat"},
		{"keyword", "claude-sonnet-4-5", map[string]config.ProviderConfig{"anthropic": key("a"), "openai": key("o")}, nil, "anthropic", "claude-sonnet-4-5"},
		{"keyword needs a key", "claude-sonnet-4-5", map[string]config.ProviderConfig{"anthropic": {}, "openrouter": key("o")}, nil, "openrouter", "claude-sonnet-4-5"},
		{"key from the environment", "gpt-4o", nil, []string{"OPENAI_API_KEY=sk"}, "openai", "gpt-4o"},
		{"gateway first in fallback", "llama3", map[string]config.ProviderConfig{"groq": key("g"), "openrouter": key("o")}, nil, "openrouter", "llama3"},
		{"local server by apiBase", "llama3", map[string]config.ProviderConfig{"vllm": {APIBase: "http://127.0.0.1:8000/v1"}}, nil, "vllm", "llama3"},
		{"custom name", "llama3", map[string]config.ProviderConfig{"myProxy": {APIBase: "http://127.0.0.1:9/v1"}}, nil, "myProxy", "llama3"},
		{"camelCase entry", "qwen3-coder", map[string]config.ProviderConfig{"dashscopeCodingPlan": key("sk-sp-1")}, nil, "dashscope_coding_plan", "qwen3-coder"},
		{"entry's own model", "", map[string]config.ProviderConfig{"deepseek": {APIKey: "d", Model: "deepseek-chat"}}, nil, "deepseek", "deepseek-chat"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := resolve("auto", tt.model, tt.providers, tt.environ...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.Name)
			assert.Equal(t, tt.wantModel, c.Model)
			assert.NotEmpty(t, c.Why)
		})
	}
}

func TestResolveAutoWithNothingIsScripted(t *testing.T) {
	t.Parallel()
	for _, provider := range []string{"", "auto", "AUTO"} {
		c, err := resolve(provider, "", map[string]config.ProviderConfig{"anthropic": {}}, "ANTHROPIC_API_KEY=k")
		require.NoError(t, err)
		assert.True(t, c.Scripted)
		assert.Equal(t, "scripted", c.Name)
		assert.Contains(t, c.Why, "no model and no provider configured")
	}
	c, err := resolve("scripted", "gpt-4o", allKeyed())
	require.NoError(t, err)
	assert.True(t, c.Scripted, "scripted when asked for")
}

func allKeyed() map[string]config.ProviderConfig {
	return map[string]config.ProviderConfig{"openai": key("o")}
}

func TestResolveErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, provider, model string
		providers             map[string]config.ProviderConfig
		want                  string
	}{
		{"a key but no model", "auto", "", map[string]config.ProviderConfig{"deepseek": key("d")},
			`providers.deepseek.model: required for provider "deepseek" (or set agents.defaults.model)`},
		{"a model nothing serves", "auto", "mystery-7b", nil,
			`agents.defaults.model: no provider is configured for "mystery-7b": set agents.defaults.provider and that provider's apiKey under providers (apiBase for a local server), or remove the model to use the scripted provider`},
		{"a local model without its server", "auto", "vllm/llama", nil,
			`agents.defaults.model: "vllm/llama" needs provider vllm, which is not configured: set providers.vllm.apiBase`},
		{"custom name without apiBase", "myProxy", "m", map[string]config.ProviderConfig{"myProxy": key("k")},
			`providers.myProxy.apiBase: required: provider "myProxy" has no endpoint of its own, so name its OpenAI-compatible server (such as http://localhost:8000/v1)`},
		{"custom (nanobot's) without apiBase", "custom", "m", map[string]config.ProviderConfig{"custom": key("k")},
			`providers.custom.apiBase: required: provider "custom" has no endpoint of its own, so name its OpenAI-compatible server (such as http://localhost:8000/v1)`},
		{"bad apiBase", "openai", "m", map[string]config.ProviderConfig{"openai": {APIKey: "k", APIBase: "api.openai.com"}},
			`providers.openai.apiBase: "api.openai.com": want an http or https URL such as http://localhost:8000/v1`},
		{"oauth", "openai-codex", "m", nil,
			`agents.defaults.provider: "openai-codex" signs in with OAuth, which switchboard does not support: choose a provider with an API key (none has a key yet)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := resolve(tt.provider, tt.model, tt.providers)
			assert.EqualError(t, err, tt.want)
		})
	}
}

func TestResolveNamed(t *testing.T) {
	t.Parallel()
	c, err := resolve("dashscope-coding-plan", "dashscope/qwen3-coder-plus",
		map[string]config.ProviderConfig{"dashscopeCodingPlan": key("sk-sp-1")})
	require.NoError(t, err)
	assert.Equal(t, catalog.Choice{Name: "dashscope_coding_plan", Spec: c.Spec, Path: "providers.dashscopeCodingPlan",
		Config: key("sk-sp-1"), APIBase: "https://coding.dashscope.aliyuncs.com/v1", APIKey: "sk-sp-1",
		KeyFrom: "providers.dashscopeCodingPlan.apiKey", Model: "qwen3-coder-plus", Why: "agents.defaults.provider"}, c)

	c, err = resolve("ollama", "llama3", nil)
	require.NoError(t, err, "a local server needs no key")
	assert.Equal(t, "http://localhost:11434/v1", c.APIBase)
	assert.Empty(t, c.APIKey)
	assert.Empty(t, c.KeyFrom)
}

// A choice's kind names the package that registers it.
func TestChoiceKind(t *testing.T) {
	t.Parallel()
	c, err := resolve("anthropic", "claude-x", map[string]config.ProviderConfig{"anthropic": key("a")})
	require.NoError(t, err)
	assert.Equal(t, "anthropic", c.Kind())
	c, err = resolve("deepseek", "deepseek-chat", map[string]config.ProviderConfig{"deepseek": key("d")})
	require.NoError(t, err)
	assert.Equal(t, "openai", c.Kind(), "an OpenAI-compatible provider")
	c, err = resolve("myProxy", "m", map[string]config.ProviderConfig{"myProxy": {APIBase: "http://127.0.0.1:9/v1"}})
	require.NoError(t, err)
	assert.Equal(t, "openai", c.Kind(), "a custom entry")
	c, err = resolve("scripted", "", nil)
	require.NoError(t, err)
	assert.Equal(t, "scripted", c.Kind())
	assert.Equal(t, "oauth", catalog.OAuth.String())
	assert.Equal(t, "Kind(9)", catalog.Kind(9).String())
}
