package host

import (
	"cmp"
	"fmt"
	"log/slog"
	"net/url"
	"os"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/provider/catalog"
	"github.com/switchboard-dev/switchboard/config"
)

// NewProvider returns the provider that agents.defaults.provider names, and
// its name: a provider nanobot knows (anthropic through Anthropic's own
// API; openai, openrouter, deepseek, groq, moonshot, dashscope, zhipu,
// gemini, ... through their OpenAI-compatible endpoints; vllm, custom or
// any other name under providers with an apiBase), "scripted", or "auto"
// (the default), which chooses as nanobot does (see catalog.Resolve). The
// key goes only to the provider's own endpoint: its default one or the
// apiBase beside the key.
//
// The provider is built by the package of its kind (openai, anthropic,
// scripted under agentloop/provider), which registers itself when the
// program imports it; host imports none. A kind the program did not
// import is an error that wraps agentloop.ErrProviderNotLinked and names
// the missing import.
//
// Of opts, NewProvider uses Providers, Environ (the providers' environment keys, such
// as ANTHROPIC_API_KEY; nil: os.Environ()), HTTPClient and Logger (one INFO
// line says which provider was chosen, and why; New logs it once the host
// has started). Errors name the key to fix.
func NewProvider(cfg *config.Config, opts Options) (agent.Provider, string, error) {
	p, name, note, err := newProvider(cfg, opts)
	if err == nil && opts.Logger != nil {
		note.log(opts.Logger)
	}
	return p, name, err
}

// choiceNote is the INFO line that says which provider was chosen and why.
type choiceNote struct {
	msg   string
	attrs []any
}

func (n choiceNote) log(l *slog.Logger) { l.Info(n.msg, n.attrs...) }

// newProvider is NewProvider; the line saying what was chosen is returned,
// for the caller to log when the choice is final.
func newProvider(cfg *config.Config, opts Options) (agent.Provider, string, choiceNote, error) {
	environ := opts.Environ
	if environ == nil {
		environ = os.Environ()
	}
	c, err := catalog.Resolve(cfg, environ)
	if err != nil {
		return nil, "", choiceNote{}, err
	}
	if c.Scripted {
		p, err := build(c, opts)
		return p, catalog.Scripted, choiceNote{"provider: scripted (deterministic, needs no key)", []any{"why", c.Why}}, err
	}
	note := choiceNote{"provider: " + c.Name, []any{"host", hostOf(c.APIBase), "model", c.Model, "key", keyFrom(c), "why", c.Why}}
	p, err := build(c, opts)
	return p, c.Name, note, err
}

// build makes the provider of a choice with the factory that its kind's
// package registered in opts.Providers (agentloop.RegisterProvider): the
// program links the providers it imports, host none.
func build(c catalog.Choice, opts Options) (agent.Provider, error) {
	path := cmp.Or(c.Path, "agents.defaults.provider")
	if c.Spec.Kind == catalog.OAuth && !c.Scripted { // Resolve refuses these first
		return nil, fmt.Errorf("agents.defaults.provider: %q cannot be used: choose a provider with an API key", c.Name)
	}
	reg := opts.Providers
	if reg == nil {
		reg = agentloop.DefaultProviderRegistry()
	}
	f, err := reg.Lookup(c.Kind())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p, err := f(agentloop.ProviderSettings{Name: c.Name, Config: c.Config, APIKey: c.APIKey, APIBase: c.APIBase,
		Model: c.Model, HTTPClient: opts.HTTPClient})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// hostOf returns the host of a base URL, for the log.
func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil {
		return u.Host
	}
	return base
}

// keyFrom says where the key came from, never the key itself.
func keyFrom(c catalog.Choice) string {
	if c.KeyFrom == "" {
		return "none"
	}
	return c.KeyFrom
}
