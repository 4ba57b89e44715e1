package mailbox

import (
	"fmt"
	"maps"
	"slices"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
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
	return New(cfg, deps.Bus, Options{Logger: deps.Logger, Clock: deps.Clock})
}

// DecodeConfig decodes (see DecodeSection) and validates a
// channels.mailbox section.
func DecodeConfig(section config.Section) (Config, error) {
	cfg, err := DecodeSection(section)
	if err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(section.Path); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// DecodeSection decodes a channels.mailbox section over DefaultConfig,
// strictly, without validating the values. A key that names a registered
// backend (channels.mailbox.nats) is that backend's own section: it is
// kept in Config.Stores for the backend to decode when the store is
// opened.
func DecodeSection(section config.Section) (Config, error) {
	cfg := DefaultConfig()
	stores := map[string]config.Section{}
	for _, name := range store.Names() {
		if _, present := section.Raw[name]; !present {
			continue
		}
		sub, ok := section.Sub(name)
		if !ok {
			return Config{}, fmt.Errorf("%s: want an object with the settings of the %q backend", sub.Path, name)
		}
		stores[name] = sub
	}
	if err := section.Without(slices.Collect(maps.Keys(stores))...).Decode(&cfg); err != nil {
		return Config{}, err
	}
	cfg.Stores = stores
	return cfg, nil
}
