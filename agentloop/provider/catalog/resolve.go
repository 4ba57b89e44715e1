package catalog

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/config"
)

// Names of agents.defaults.provider that are no entry of Specs.
const (
	// Auto chooses the provider from the model name and the keys
	// configured (see Resolve).
	Auto = "auto"
	// Scripted is the deterministic provider that needs no key.
	Scripted = "scripted"
)

// Choice is the provider a configuration asks for.
type Choice struct {
	// Name is the provider's name: a Spec's, the name of a custom entry
	// of the providers section, or Scripted.
	Name string
	// Spec describes the provider; a custom entry (a name nanobot does not
	// know) has a Spec of kind OpenAICompatible with only its Name set.
	Spec Spec
	// Scripted is set when the scripted provider is chosen; the other
	// fields but Name and Why are then empty.
	Scripted bool
	// Path is the key path of the provider's config ("providers.deepseek").
	Path string
	// Config is the provider's entry of the providers section.
	Config config.ProviderConfig
	// APIBase is where requests go: the entry's apiBase, or Spec.DefaultBase.
	APIBase string
	// APIKey is the key sent to APIBase ("" for a server that needs none).
	APIKey string
	// KeyFrom says where APIKey came from: a key path or an environment
	// variable ("" when there is no key).
	KeyFrom string
	// Model is the model to ask for, without a prefix meant for nanobot's
	// routing ("anthropic/claude-x" → "claude-x").
	Model string
	// Why says how the provider was chosen, for the log.
	Why string
}

// Kind is the provider kind of the choice, the name its provider package
// registers (agentloop.RegisterProvider): Scripted, or the Spec's kind.
func (c Choice) Kind() string {
	if c.Scripted {
		return Scripted
	}
	return c.Spec.Kind.String()
}

// resolver holds what Resolve reads.
type resolver struct {
	d       config.AgentDefaults
	entries map[string]string // normalName → the key under providers
	cfg     *config.Config
	environ []string
}

// Resolve returns the provider cfg asks for; environ ("KEY=value" strings)
// holds the providers' environment keys (OPENAI_API_KEY, ...).
//
// agents.defaults.provider may be a name of Specs (in any spelling a config
// uses), the name of an entry of the providers section with an apiBase
// (any OpenAI-compatible server), Scripted, or Auto (also when empty).
// Auto works as nanobot's: a provider named by the model's prefix
// ("deepseek/deepseek-chat"), else one whose keyword the model contains
// ("claude-…" → anthropic), else the first configured provider (gateways
// first); each only when it has a key (or an apiBase). With no model and no
// provider configured, Auto is the scripted provider (Why says so); a model
// that no configured provider can serve is an error.
//
// Errors name the key path to fix and say what to set.
func Resolve(cfg *config.Config, environ []string) (Choice, error) {
	r := &resolver{d: cfg.Agents.Defaults, cfg: cfg, environ: environ, entries: map[string]string{}}
	for _, key := range slices.Sorted(maps.Keys(cfg.Providers)) {
		r.entries[normalName(key)] = key
	}
	name := strings.TrimSpace(r.d.Provider)
	switch normalName(name) {
	case "", Auto:
		return r.auto()
	case Scripted:
		return Choice{Name: Scripted, Scripted: true, Why: "agents.defaults.provider"}, nil
	}
	spec, known := Lookup(name)
	_, configured := r.entry(name)
	switch {
	case known && spec.Kind == OAuth:
		return Choice{}, fmt.Errorf("agents.defaults.provider: %q signs in with OAuth, which switchboard does not support: choose a provider with an API key (%s)",
			name, strings.Join(r.keyed(), ", "))
	case !known && !configured:
		return Choice{}, fmt.Errorf("agents.defaults.provider: unknown provider %q: want %q, %q, a provider nanobot knows (%s), or a name under providers with an apiBase",
			name, Auto, Scripted, strings.Join(Names(), ", "))
	case !known:
		spec = Spec{Name: name}
	}
	return r.build(spec, name, "agents.defaults.provider")
}

// auto chooses as nanobot's provider "auto" does.
func (r *resolver) auto() (Choice, error) {
	model := r.d.Model
	if model == "" {
		c, found, err := r.fallback()
		if !found {
			return Choice{Name: Scripted, Scripted: true,
				Why: "auto: no model and no provider configured (set agents.defaults.model and providers.<name>.apiKey to use an LLM)"}, nil
		}
		return c, err
	}
	var wanted *Spec // the provider the model names, when it has no key
	if prefix, _, ok := strings.Cut(model, "/"); ok {
		if spec, known := Lookup(prefix); known && spec.Kind != OAuth {
			if r.usable(spec) {
				return r.build(spec, spec.Name, "auto: the model's prefix")
			}
			wanted = &spec
		}
	}
	for _, spec := range Specs {
		if spec.Kind != OAuth && spec.matches(model) {
			if r.usable(spec) {
				return r.build(spec, spec.Name, "auto: the model's name")
			}
			if wanted == nil {
				wanted = &spec
			}
		}
	}
	if c, found, err := r.fallback(); found {
		return c, err
	}
	if wanted != nil {
		hint := "set " + configPath(wanted.Name) + ".apiKey"
		if wanted.EnvKey != "" {
			hint += " (or " + wanted.EnvKey + ")"
		}
		if wanted.DefaultBase == "" {
			hint = "set " + configPath(wanted.Name) + ".apiBase"
		}
		return Choice{}, fmt.Errorf("agents.defaults.model: %q needs provider %s, which is not configured: %s",
			model, wanted.Name, hint)
	}
	return Choice{}, fmt.Errorf("agents.defaults.model: no provider is configured for %q: set agents.defaults.provider and that provider's apiKey under providers (apiBase for a local server), or remove the model to use the scripted provider",
		model)
}

// fallback returns the first configured provider: nanobot's in order of
// priority (gateways first), then custom entries by name. found is false
// when none is configured; err says what the one found lacks.
func (r *resolver) fallback() (c Choice, found bool, err error) {
	const why = "auto: the first provider configured"
	for _, spec := range Specs {
		if spec.Kind == OAuth {
			continue
		}
		if _, ok := r.configured(spec.Name); ok {
			c, err := r.build(spec, spec.Name, why)
			return c, true, err
		}
	}
	for _, n := range slices.Sorted(maps.Keys(r.entries)) {
		if _, known := Lookup(n); known {
			continue
		}
		if _, ok := r.configured(n); ok {
			c, err := r.build(Spec{Name: r.entries[n]}, r.entries[n], why)
			return c, true, err
		}
	}
	return Choice{}, false, nil
}

// usable reports whether spec has a key (in config or environment) or an
// apiBase.
func (r *resolver) usable(spec Spec) bool {
	if _, ok := r.configured(spec.Name); ok {
		return true
	}
	return spec.EnvKey != "" && getenv(r.environ, spec.EnvKey) != ""
}

// configured returns the entry called name when it has a key or an apiBase.
func (r *resolver) configured(name string) (config.ProviderConfig, bool) {
	pc, ok := r.entry(name)
	return pc, ok && (pc.APIKey != "" || pc.APIBase != "")
}

// entry returns the providers section's entry called name (any spelling).
func (r *resolver) entry(name string) (config.ProviderConfig, bool) {
	key, ok := r.entries[normalName(name)]
	if !ok {
		return config.ProviderConfig{}, false
	}
	return r.cfg.Providers[key], true
}

// keyed lists the entries with a key, for an error message.
func (r *resolver) keyed() []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(r.entries)) {
		if pc, _ := r.entry(n); pc.APIKey != "" {
			out = append(out, "providers."+r.entries[n])
		}
	}
	if len(out) == 0 {
		return []string{"none has a key yet"}
	}
	return out
}

// build completes the choice of spec, called name in the config.
func (r *resolver) build(spec Spec, name, why string) (Choice, error) {
	path := configPath(spec.Name)
	if key, ok := r.entries[normalName(name)]; ok {
		path = "providers." + key
	}
	pc, _ := r.entry(name)
	c := Choice{Name: spec.Name, Spec: spec, Path: path, Config: pc, APIBase: pc.APIBase, APIKey: pc.APIKey, Why: why}
	if c.APIKey != "" {
		c.KeyFrom = path + ".apiKey"
	}
	if c.APIBase == "" {
		c.APIBase = spec.DefaultBase
		if c.APIBase == "" {
			return Choice{}, fmt.Errorf("%s.apiBase: required: provider %q has no endpoint of its own, so name its OpenAI-compatible server (such as http://localhost:8000/v1)",
				path, name)
		}
		if c.APIKey == "" && spec.EnvKey != "" {
			// An environment key goes only to its provider's own endpoint.
			c.APIKey = getenv(r.environ, spec.EnvKey)
			c.KeyFrom = spec.EnvKey
		}
		if c.APIKey == "" && !spec.KeyOptional {
			hint := ""
			if spec.EnvKey != "" {
				hint = " (or set " + spec.EnvKey + ")"
			}
			return Choice{}, fmt.Errorf("%s.apiKey: required for provider %q%s, or set %s.apiBase for a server that needs no key",
				path, name, hint, path)
		}
	}
	if c.APIKey == "" {
		c.KeyFrom = ""
	}
	if u, err := url.Parse(c.APIBase); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Choice{}, fmt.Errorf("%s.apiBase: %q: want an http or https URL such as http://localhost:8000/v1", path, c.APIBase)
	}
	c.Model = pc.Model
	if c.Model == "" {
		c.Model = r.d.Model
	}
	if c.Model == "" {
		return Choice{}, fmt.Errorf("%s.model: required for provider %q (or set agents.defaults.model)", path, name)
	}
	c.Model = spec.ModelFor(c.Model)
	return c, nil
}

// configPath is the key path of a provider's entry as nanobot writes it
// (camelCase: "providers.dashscopeCodingPlan").
func configPath(name string) string {
	parts := strings.Split(name, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return "providers." + strings.Join(parts, "")
}

// getenv returns the value of name in environ ("" when unset); the last
// setting wins, as in a shell.
func getenv(environ []string, name string) string {
	for _, kv := range slices.Backward(environ) {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}
