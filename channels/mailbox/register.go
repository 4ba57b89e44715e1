package mailbox

import (
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

func init() { channels.Register(ChannelName, Factory) }

// Factory builds the mailbox channel from its config section: the defaults
// of DefaultConfig, overridden by the section, then validated.
func Factory(section config.Section, deps channels.Deps) (channels.Channel, error) {
	cfg, err := DecodeConfig(section)
	if err != nil {
		return nil, err
	}
	return New(cfg, deps.Bus, Options{Logger: deps.Logger})
}

// DecodeConfig decodes and validates a channels.mailbox section.
func DecodeConfig(section config.Section) (Config, error) {
	cfg := DefaultConfig()
	if err := section.Decode(&cfg); err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(section.Path); err != nil {
		return Config{}, err
	}
	return cfg, nil
}
