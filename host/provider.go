package host

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/provider/openai"
	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
	"github.com/switchboard-dev/switchboard/config"
)

// scriptedProvider is the name of the deterministic provider, the default.
const scriptedProvider = config.DefaultProvider

// NewProvider returns the provider agents.defaults.provider names:
// "scripted" (the default), or an OpenAI-compatible one configured under
// providers.<name> ("openai", or any name with an apiBase, such as a local
// vLLM or Ollama server). Errors name the key to fix.
func NewProvider(cfg *config.Config, environ []string) (agentloop.Provider, string, error) {
	d := cfg.Agents.Defaults
	name := d.Provider
	if name == "" {
		name = scriptedProvider
	}
	if name == scriptedProvider {
		return scripted.New(), name, nil
	}
	pc, ok := cfg.Providers[name]
	if !ok && name != "openai" {
		return nil, "", fmt.Errorf("agents.defaults.provider: unknown provider %q: want %q or a name under providers (configured: %s)",
			name, scriptedProvider, strings.Join(append([]string{scriptedProvider}, slices.Sorted(maps.Keys(cfg.Providers))...), ", "))
	}
	key := "providers." + name
	if pc.Model == "" && d.Model == "" {
		return nil, "", fmt.Errorf("%s.model: required for provider %q (or set agents.defaults.model)", key, name)
	}
	if pc.APIBase == "" && pc.APIKey == "" && getenv(environ, "OPENAI_API_KEY") == "" {
		return nil, "", fmt.Errorf("%s.apiKey: required for provider %q (or set OPENAI_API_KEY, or apiBase for a server that needs no key)", key, name)
	}
	oc := openai.FromConfig(pc)
	if oc.APIBase == "" && oc.APIKey == "" {
		oc.APIKey = getenv(environ, "OPENAI_API_KEY")
	}
	p, err := openai.New(oc)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", key, err)
	}
	return p, name, nil
}

// getenv returns the value of name in environ ("" when unset).
func getenv(environ []string, name string) string {
	for _, kv := range slices.Backward(environ) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}
