package host_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// seen is one request as it left the provider: where it was going and
// with which headers and model.
type seen struct {
	Host, Path string
	Header     http.Header
	Model      string
}

// fakeModels answers, on a local server, every request as a chat model
// would: Anthropic's Messages API on /v1/messages, OpenAI's chat
// completions on any path ending in /chat/completions. Its Transport sends
// a request for any host there, so a provider may keep its real default
// endpoint: the test reads where each request was going in seen.
type fakeModels struct {
	srv  *httptest.Server
	mu   sync.Mutex
	reqs []seen
}

func newFakeModels(t *testing.T) *fakeModels {
	t.Helper()
	f := &fakeModels{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct{ Model string }
		data, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(data, &body)
		host := r.Header.Get("X-Test-Host")
		if host == "" {
			host = r.Host
		}
		f.mu.Lock()
		f.reqs = append(f.reqs, seen{Host: host, Path: r.URL.Path, Header: r.Header.Clone(), Model: body.Model})
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasSuffix(r.URL.Path, "/v1/messages"):
			_ = json.NewEncoder(w).Encode(map[string]any{"id": "msg_1", "type": "message", "role": "assistant",
				"model": body.Model, "stop_reason": "end_turn", "usage": map[string]any{"input_tokens": 1, "output_tokens": 1},
				"content": []any{map[string]any{"type": "text", "text": "hi from anthropic"}}})
		case strings.HasSuffix(r.URL.Path, "/chat/completions"):
			_ = json.NewEncoder(w).Encode(map[string]any{"id": "c1", "object": "chat.completion", "created": 1, "model": body.Model,
				"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
					"message": map[string]any{"role": "assistant", "content": "hi from openai-compatible"}}}})
		default:
			http.Error(w, "unexpected path "+r.URL.Path, http.StatusTeapot)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// Client returns an HTTP client whose requests, to any host, reach the
// fake server; the host they were going to travels in X-Test-Host.
func (f *fakeModels) Client() *http.Client {
	target, _ := url.Parse(f.srv.URL)
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.Header.Set("X-Test-Host", r.URL.Host)
		r.URL.Scheme, r.URL.Host, r.Host = target.Scheme, target.Host, ""
		return http.DefaultTransport.RoundTrip(r)
	})}
}

func (f *fakeModels) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// allKeys is a providers section with a key for each of names: "key-<name>".
func allKeys(names ...string) map[string]config.ProviderConfig {
	out := map[string]config.ProviderConfig{}
	for _, n := range names {
		out[n] = config.ProviderConfig{APIKey: "key-" + n}
	}
	return out
}

// chatOnce builds the provider cfg asks for and sends it one message.
func chatOnce(t *testing.T, cfg *config.Config, opts host.Options) (string, string) {
	t.Helper()
	p, name, err := host.NewProvider(cfg, opts)
	require.NoError(t, err)
	resp, err := p.Chat(context.Background(), agent.Request{MaxTokens: 50,
		Messages: []agent.Message{{Role: agent.RoleSystem, Content: "be brief"}, {Role: agent.RoleUser, Content: "hi"}}})
	require.NoError(t, err)
	return name, resp.Content
}

// Each provider name reaches its provider's real endpoint with its own key,
// and no other key is ever sent: every config below holds a key for every
// provider.
func TestProvidersReachTheirOwnEndpointWithTheirOwnKey(t *testing.T) {
	t.Parallel()
	names := []string{"anthropic", "openai", "openrouter", "deepseek", "groq", "moonshot", "dashscope", "zhipu", "gemini", "minimax"}
	for _, tt := range []struct {
		provider, model string
		host, path      string
		auth            func(h http.Header) string // the key as sent
		model2          string                     // the model as sent
	}{
		{"anthropic", "anthropic/claude-sonnet-4-5", "api.anthropic.com", "/v1/messages", xAPIKey, "claude-sonnet-4-5"},
		{"openai", "gpt-4o", "api.openai.com", "/v1/chat/completions", bearer, "gpt-4o"},
		{"openrouter", "anthropic/claude-sonnet-4-5", "openrouter.ai", "/api/v1/chat/completions", bearer, "anthropic/claude-sonnet-4-5"},
		{"deepseek", "deepseek/deepseek-chat", "api.deepseek.com", "/chat/completions", bearer, "deepseek-chat"},
		{"groq", "llama-3.3-70b-versatile", "api.groq.com", "/openai/v1/chat/completions", bearer, "llama-3.3-70b-versatile"},
		{"moonshot", "kimi-k2", "api.moonshot.ai", "/v1/chat/completions", bearer, "kimi-k2"},
		{"dashscope", "qwen-max", "dashscope.aliyuncs.com", "/compatible-mode/v1/chat/completions", bearer, "qwen-max"},
		{"zhipu", "zai/glm-4.6", "open.bigmodel.cn", "/api/paas/v4/chat/completions", bearer, "glm-4.6"},
		{"gemini", "gemini-2.5-flash", "generativelanguage.googleapis.com", "/v1beta/openai/chat/completions", bearer, "gemini-2.5-flash"},
	} {
		t.Run(tt.provider, func(t *testing.T) {
			t.Parallel()
			f := newFakeModels(t)
			cfg := config.Default()
			cfg.Providers = allKeys(names...)
			cfg.Agents.Defaults.Provider, cfg.Agents.Defaults.Model = tt.provider, tt.model
			name, _ := chatOnce(t, cfg, host.Options{HTTPClient: f.Client(), Environ: []string{"OPENAI_API_KEY=env-openai"}})
			assert.Equal(t, tt.provider, name)
			reqs := f.requests()
			require.Len(t, reqs, 1)
			r := reqs[0]
			assert.Equal(t, tt.host, r.Host)
			assert.Equal(t, tt.path, r.Path)
			assert.Equal(t, "key-"+tt.provider, tt.auth(r.Header))
			assert.Equal(t, tt.model2, r.Model, "the routing prefix of a nanobot model name is not sent")
			for k, vs := range r.Header {
				for _, v := range vs {
					for _, other := range append(names, "env-openai") {
						if other != tt.provider {
							assert.NotContains(t, v, "key-"+other, "header %s carries another provider's key", k)
							assert.NotContains(t, v, "env-openai", "header %s carries the environment's OpenAI key", k)
						}
					}
				}
			}
		})
	}
}

func bearer(h http.Header) string  { return strings.TrimPrefix(h.Get("Authorization"), "Bearer ") }
func xAPIKey(h http.Header) string { return h.Get("X-Api-Key") + h.Get("Authorization") }

// extraHeaders are sent, on both kinds of API.
func TestProviderExtraHeaders(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"anthropic", "aihubmix"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := newFakeModels(t)
			cfg := config.Default()
			cfg.Providers[name] = config.ProviderConfig{APIKey: "k", ExtraHeaders: map[string]string{"APP-Code": "abc123"}}
			cfg.Agents.Defaults.Provider, cfg.Agents.Defaults.Model = name, "some/model"
			chatOnce(t, cfg, host.Options{HTTPClient: f.Client()})
			assert.Equal(t, "abc123", f.requests()[0].Header.Get("App-Code"))
		})
	}
}

// A key from the environment goes to its provider's own endpoint; with an
// apiBase of its own, the provider does not get the environment's key.
func TestProviderKeyFromEnvironment(t *testing.T) {
	t.Parallel()
	f := newFakeModels(t)
	cfg := config.Default()
	cfg.Agents.Defaults.Provider, cfg.Agents.Defaults.Model = "deepseek", "deepseek-chat"
	chatOnce(t, cfg, host.Options{HTTPClient: f.Client(), Environ: []string{"DEEPSEEK_API_KEY=env-ds"}})
	assert.Equal(t, "Bearer env-ds", f.requests()[0].Header.Get("Authorization"))

	proxy := newFakeModels(t)
	cfg.Providers["deepseek"] = config.ProviderConfig{APIBase: proxy.srv.URL + "/v1"}
	chatOnce(t, cfg, host.Options{Environ: []string{"DEEPSEEK_API_KEY=env-ds"}})
	require.Len(t, proxy.requests(), 1)
	assert.Empty(t, proxy.requests()[0].Header.Get("Authorization"), "the environment's key is not sent to another server")
}

// The SDKs' own environment variables (OPENAI_BASE_URL, ANTHROPIC_BASE_URL,
// their keys and tokens, OPENAI_ORG_ID) redirect nothing and add no
// credential. Not parallel: it sets the process's environment.
func TestProviderIgnoresTheSDKsEnvironment(t *testing.T) {
	elsewhere := newFakeModels(t)
	for k, v := range map[string]string{
		"OPENAI_BASE_URL": elsewhere.srv.URL + "/v1", "OPENAI_API_KEY": "leak-openai", "OPENAI_ORG_ID": "leak-org",
		"ANTHROPIC_BASE_URL": elsewhere.srv.URL, "ANTHROPIC_API_KEY": "leak-anthropic", "ANTHROPIC_AUTH_TOKEN": "leak-token",
	} {
		t.Setenv(k, v)
	}
	for _, provider := range []string{"anthropic", "deepseek", "vllm"} {
		own := newFakeModels(t)
		cfg := config.Default()
		cfg.Providers[provider] = config.ProviderConfig{APIKey: "own-key", APIBase: own.srv.URL + "/v1"}
		if provider == "anthropic" {
			cfg.Providers[provider] = config.ProviderConfig{APIKey: "own-key", APIBase: own.srv.URL}
		}
		cfg.Agents.Defaults.Provider, cfg.Agents.Defaults.Model = provider, "m"
		chatOnce(t, cfg, host.Options{Environ: []string{}})
		require.Len(t, own.requests(), 1, provider)
		h := own.requests()[0].Header
		for k, vs := range h {
			assert.NotContains(t, strings.Join(vs, " "), "leak-", "%s: header %s", provider, k)
		}
		assert.Contains(t, h.Get("Authorization")+h.Get("X-Api-Key"), "own-key")
	}
	assert.Empty(t, elsewhere.requests(), "nothing went where the environment pointed")
}

func TestNewProviderChoosesScriptedWithNothingConfigured(t *testing.T) {
	t.Parallel()
	logs := logSignals{testkit.NewLog[string]()}
	p, name, err := host.NewProvider(config.Default(), host.Options{Environ: []string{"OPENAI_API_KEY=sk-x"}, Logger: slog.New(logs)})
	require.NoError(t, err)
	assert.IsType(t, &scripted.Provider{}, p)
	assert.Equal(t, "scripted", name)
	assert.Equal(t, []string{"provider: scripted (deterministic, needs no key)"}, logs.All())
}

func TestNewProviderErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		provider  string
		model     string
		providers map[string]config.ProviderConfig
		want      string
	}{
		{"model without provider or key", "", "gpt-4o", nil,
			`agents.defaults.model: "gpt-4o" needs provider openai, which is not configured: set providers.openai.apiKey (or OPENAI_API_KEY)`},
		{"anthropic without key", "anthropic", "claude-x", nil,
			`providers.anthropic.apiKey: required for provider "anthropic" (or set ANTHROPIC_API_KEY), or set providers.anthropic.apiBase for a server that needs no key`},
		{"vllm without apiBase", "vllm", "llama", map[string]config.ProviderConfig{"vllm": {APIKey: "k"}},
			`providers.vllm.apiBase: required: provider "vllm" has no endpoint of its own, so name its OpenAI-compatible server (such as http://localhost:8000/v1)`},
		{"unknown name", "mystery", "m", nil,
			`agents.defaults.provider: unknown provider "mystery": want "auto", "scripted", a provider nanobot knows (`},
		{"oauth", "github_copilot", "m", allKeys("openai"),
			`agents.defaults.provider: "github_copilot" signs in with OAuth, which switchboard does not support: choose a provider with an API key (providers.openai)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := config.Default()
			cfg.Agents.Defaults.Provider, cfg.Agents.Defaults.Model = tt.provider, tt.model
			if tt.providers != nil {
				cfg.Providers = tt.providers
			}
			_, _, err := host.NewProvider(cfg, host.Options{Environ: []string{}})
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tt.want), err.Error())
		})
	}
}

// A config.json as nanobot writes one loads, and its provider works.
func TestNanobotProvidersConfigLoads(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{
  "agents": {"defaults": {"model": "anthropic/claude-opus-4-5", "provider": "auto",
                          "judge": "capabilities", "judgeTimeout": 5, "systemPrompt": "You are terse."}},
  "providers": {
    "anthropic": {"apiKey": "sk-ant-1", "apiBase": null, "extraHeaders": {"X-Team": "blue"}},
    "dashscope_coding_plan": {"apiKey": "sk-sp-1", "apiBase": null, "extraHeaders": null},
    "openrouter": {"apiKey": "", "apiBase": null, "extraHeaders": null}
  }
}`), 0o600))
	cfg, err := config.Load(config.LoadOptions{Path: path})
	require.NoError(t, err)
	assert.Equal(t, "capabilities", cfg.Agents.Defaults.Judge)
	f := newFakeModels(t)
	name, answer := chatOnce(t, cfg, host.Options{HTTPClient: f.Client(), Environ: []string{}})
	assert.Equal(t, "anthropic", name)
	assert.Equal(t, "hi from anthropic", answer)
	r := f.requests()[0]
	assert.Equal(t, "api.anthropic.com", r.Host)
	assert.Equal(t, "sk-ant-1", r.Header.Get("X-Api-Key"))
	assert.Equal(t, "blue", r.Header.Get("X-Team"))
	assert.Equal(t, "claude-opus-4-5", r.Model)
}
