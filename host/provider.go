package host

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/agentloop/provider/anthropic"
	"github.com/switchboard-dev/switchboard/agentloop/provider/catalog"
	"github.com/switchboard-dev/switchboard/agentloop/provider/openai"
	"github.com/switchboard-dev/switchboard/agentloop/provider/scripted"
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
// Of opts, NewProvider uses Environ (the providers' environment keys, such
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
		return scripted.New(), catalog.Scripted, choiceNote{"provider: scripted (deterministic, needs no key)", []any{"why", c.Why}}, nil
	}
	note := choiceNote{"provider: " + c.Name, []any{"host", hostOf(c.APIBase), "model", c.Model, "key", keyFrom(c), "why", c.Why}}
	p, err := build(c, opts.HTTPClient)
	return p, c.Name, note, err
}

// build makes the provider of a choice.
func build(c catalog.Choice, client *http.Client) (agent.Provider, error) {
	switch c.Spec.Kind {
	case catalog.Anthropic:
		ac := anthropic.FromConfig(c.Config)
		ac.APIKey, ac.APIBase, ac.Model, ac.HTTPClient = c.APIKey, c.APIBase, c.Model, client
		p, err := anthropic.New(ac)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Path, err)
		}
		return p, nil
	case catalog.OpenAICompatible:
		oc := openai.FromConfig(c.Config)
		oc.APIKey, oc.APIBase, oc.Model, oc.HTTPClient = c.APIKey, c.APIBase, c.Model, client
		p, err := openai.New(oc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Path, err)
		}
		return p, nil
	}
	return nil, fmt.Errorf("agents.defaults.provider: %q cannot be used: choose a provider with an API key", c.Name)
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
