package host

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

// logIgnored logs, in one INFO line, the keys of cfg that switchboard
// accepts and does not use (nanobot's keys, sections of channel types not
// in this build), except the enabled channels skipped, which the channel
// manager has warned about already.
func logIgnored(log *slog.Logger, cfg *config.Config, skipped []string) {
	var keys []string
	for _, e := range cfg.Report.Entries() {
		if e.Status == config.Ignored && !slices.Contains(skipped, strings.TrimPrefix(e.Path, "channels.")) {
			keys = append(keys, e.Path)
		}
	}
	if len(keys) > 0 {
		log.Info("config keys switchboard does not use, ignored (switchboard config check says why)", "keys", keys)
	}
}

// CheckChannels returns the error run stops with when cfg enables no
// channel of a type reg has (enabled sections of other types are skipped
// with a warning): the one check of it, which config check shares.
func CheckChannels(reg *channels.Registry, cfg *config.Config) error {
	var skipped []string
	for _, name := range slices.Sorted(maps.Keys(cfg.Channels)) {
		if !cfg.Channels[name].Enabled() {
			continue
		}
		if _, err := reg.Lookup(name); err == nil {
			return nil
		}
		skipped = append(skipped, name)
	}
	return noChannel(cfg, skipped)
}

// noChannel is the error of a config that enables no channel this build
// has, naming the enabled ones it skipped.
func noChannel(cfg *config.Config, skipped []string) error {
	from := cfg.Path
	if from == "" {
		from = "the config (no file found)"
	}
	if len(skipped) > 0 {
		return fmt.Errorf("no channel is enabled in %s but channels.%s, of channel types not in this build: set channels.mailbox.enabled (or channels.feishu.enabled) to true",
			from, strings.Join(skipped, ", channels."))
	}
	return fmt.Errorf("no channel is enabled in %s: set channels.mailbox.enabled (or channels.feishu.enabled) to true", from)
}
