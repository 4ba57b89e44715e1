package scripted

import (
	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/agentloop"
)

// Kind is the provider kind this package registers (catalog.Scripted).
const Kind = "scripted"

func init() {
	agentloop.RegisterProvider(Kind, func(agentloop.ProviderSettings) (agent.Provider, error) { return New(), nil })
}
