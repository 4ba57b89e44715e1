package channels

import (
	"fmt"
	"slices"

	"github.com/switchboard-dev/switchboard/config"
)

// notBuilt decides what Build does with a section whose channel type reg
// lacks (lookupErr says so): a disabled one, or one of a channel type
// nanobot has, is recorded as ignored and skipped (nil); an enabled one of
// a type nobody knows is an error, with the closest known type.
func notBuilt(reg *Registry, section config.Section, name string, lookupErr error) error {
	if !section.Enabled() || config.NanobotChannel(name) {
		section.Ignore(config.ReasonChannelType)
		return nil
	}
	if s, ok := config.Closest(name, append(reg.Types(), config.NanobotChannels()...)); ok {
		return fmt.Errorf("%s: %w; did you mean %q?", section.Path, lookupErr, s)
	}
	return fmt.Errorf("%s: %w", section.Path, lookupErr)
}

// skip logs the enabled channels of types reg lacks, which Build skipped,
// and keeps them for Skipped.
func (m *Manager) skip(names []string, reg *Registry) {
	if len(names) == 0 {
		return
	}
	m.mu.Lock()
	m.skipped = append(m.skipped, names...)
	m.mu.Unlock()
	m.cfg.Logger.Warn("skipped enabled channels of types nanobot has and this build does not",
		"channels", names, "types", reg.Types())
}

// Skipped returns the enabled channels that Build skipped because this
// build has no channel of their type (nanobot's telegram, slack, ...),
// sorted.
func (m *Manager) Skipped() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Sorted(slices.Values(m.skipped))
}
