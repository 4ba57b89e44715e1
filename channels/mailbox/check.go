package mailbox

import (
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

func init() { channels.RegisterChecker(ChannelName, Check) }

// checkAgent stands in for the agentId of a disabled section, which the
// command-line tools use without one (send --from names the sender).
const checkAgent = "switchboard"

// Check decodes and validates a channels.mailbox section as Factory does,
// without opening anything (a channels.Checker). A disabled section may
// leave agentId empty. A backend's own section (channels.mailbox.nats) is
// recorded as used: the backend decodes it when the store is opened.
func Check(section config.Section) error {
	cfg, err := DecodeSection(section)
	if err != nil {
		return err
	}
	for _, sub := range cfg.Stores {
		sub.Claim()
	}
	if cfg.AgentID == "" && !cfg.Enabled {
		cfg.AgentID = checkAgent
	}
	return cfg.Validate(section.Path)
}
