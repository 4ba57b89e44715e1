package mailbox

import (
	"fmt"

	"github.com/switchboard-dev/switchboard/config"
)

// Bounds of the duration keys (seconds). Periods (a ticker's) are at least
// config.MinPeriod so that no setting keeps a core busy, and at most a
// day; timeouts and ages at most a year, far below what a time.Duration
// holds, so no value can overflow one or panic a ticker.
var (
	periodRange  = config.SecondsRange{Min: config.MinPeriod, Max: config.Day}
	timeoutRange = config.SecondsRange{Min: config.MinTimeout, Max: config.Year}
	pruneRange   = config.SecondsRange{Min: 1, Max: config.Year}
	ageRange     = config.SecondsRange{Min: 1, Max: config.Year, Zero: "no limit"}
)

// validateDurations checks every duration key of the section against its
// bounds; key names a key under the section.
func (c *Config) validateDurations(key func(string) string) []error {
	var errs []error
	for _, d := range []struct {
		name string
		v    float64
		r    config.SecondsRange
	}{
		{"pollInterval", c.PollInterval, periodRange},
		{"heartbeatInterval", c.HeartbeatInterval, periodRange},
		{"offlineAfter", c.OfflineAfter, timeoutRange},
		{"taskTimeout", c.TaskTimeout, timeoutRange},
		{"replyTimeout", c.ReplyTimeout, timeoutRange},
		{"orphanAfter", c.OrphanAfter, timeoutRange},
		{"pruneInterval", c.PruneInterval, pruneRange},
		{"processedMaxAge", c.ProcessedMaxAge, ageRange},
		{"archiveMaxAge", c.ArchiveMaxAge, ageRange},
	} {
		if p := d.r.Problem(d.v); p != "" {
			errs = append(errs, fmt.Errorf("%s: %s", key(d.name), p))
		}
	}
	return errs
}
