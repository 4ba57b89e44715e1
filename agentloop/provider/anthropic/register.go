package anthropic

import (
	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/agentloop"
)

// Kind is the provider kind this package registers: the providers that
// speak Anthropic's Messages API (catalog.Anthropic).
const Kind = "anthropic"

func init() { agentloop.RegisterProvider(Kind, fromSettings) }

// fromSettings builds a Provider from the settings a configuration
// resolved to.
func fromSettings(s agentloop.ProviderSettings) (agent.Provider, error) {
	c := FromConfig(s.Config)
	c.APIKey, c.APIBase, c.Model, c.HTTPClient = s.APIKey, s.APIBase, s.Model, s.HTTPClient
	p, err := New(c)
	if err != nil {
		return nil, err // not a nil *Provider in a non-nil interface
	}
	return p, nil
}
