package a2a

import (
	"fmt"
	"maps"
	"slices"

	"github.com/switchboard-dev/switchboard/config"
)

// DecodeConfig decodes a channels.a2a section strictly over DefaultConfig
// (each entry of connect over its own defaults) and validates it; errors
// name the key path.
func DecodeConfig(section config.Section) (Config, error) {
	cfg := DefaultConfig()
	if err := section.Without("connect").Decode(&cfg); err != nil {
		return Config{}, err
	}
	connect, ok := section.Sub("connect")
	if !ok {
		return Config{}, fmt.Errorf("%s: want an object of A2A agents by their mailbox id", connect.Path)
	}
	for _, name := range slices.Sorted(maps.Keys(connect.Raw)) {
		sub, ok := connect.Sub(name)
		if !ok || sub.Raw == nil {
			return Config{}, fmt.Errorf("%s: want an object with the agent's url", sub.Path)
		}
		r := DefaultRemote()
		if err := sub.Decode(&r); err != nil {
			return Config{}, err
		}
		if cfg.Connect == nil {
			cfg.Connect = map[string]RemoteConfig{}
		}
		cfg.Connect[name] = r
	}
	if err := cfg.Validate(section.Path); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// Check decodes and validates a channels.a2a section as the channel's
// factory does, without opening or listening (a channels.Checker).
func Check(section config.Section) error {
	_, err := DecodeConfig(section)
	return err
}
