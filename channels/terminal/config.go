package terminal

import (
	"errors"

	"github.com/switchboard-dev/switchboard/config"
)

// ChannelName is the channel's type and name.
const ChannelName = "terminal"

// Sender is the sender id of the person at the terminal.
const Sender = "user"

// Config is the channels.terminal section; `switchboard agent` enables it.
type Config struct {
	Enabled bool `json:"enabled"`
	// AllowFrom lists who may talk (the person at the terminal is
	// Sender); default ["*"].
	AllowFrom []string `json:"allowFrom"`
}

// DefaultConfig returns the defaults of the section.
func DefaultConfig() Config { return Config{AllowFrom: []string{"*"}} }

// DecodeConfig decodes and validates a channels.terminal section.
func DecodeConfig(section config.Section) (Config, error) {
	cfg := DefaultConfig()
	if err := section.Decode(&cfg); err != nil {
		return Config{}, err
	}
	if cfg.Enabled && len(cfg.AllowFrom) == 0 {
		return Config{}, &config.KeyError{Path: section.Path + ".allowFrom", Err: config.ErrInvalidValue,
			Msg: `empty list denies every sender; leave it out, or ["*"]`}
	}
	return cfg, nil
}

// Check decodes and validates a channels.terminal section of a config
// file (a channels.Checker): enabled there, it is an error, as `switchboard
// run` finds it (nobody reads that terminal); `switchboard agent` enables
// the channel itself.
func Check(section config.Section) error {
	cfg, err := DecodeConfig(section)
	if err == nil && cfg.Enabled {
		err = &config.KeyError{Path: section.Path + ".enabled", Err: config.ErrInvalidValue,
			Msg: "the terminal channel is the chat of `switchboard agent`, which enables it; `switchboard run` has no terminal to read: leave it out"}
	}
	return err
}

// errNotAttached is Start's error when nobody is at the terminal.
var errNotAttached = errors.New("channels.terminal: nobody is at the terminal: the terminal channel is the chat of " +
	"`switchboard agent`, which enables it; disable channels.terminal for `switchboard run`")
