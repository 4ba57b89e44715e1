package mailbox

import (
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Conversations are the settings of threads, replies owed, addressing,
// the audit log and retention (docs/conversations.md). They are keys of
// the channels.mailbox section like the others; durations are seconds.
type Conversations struct {
	// AuditLog appends every event to <root>/manifest.jsonl.
	AuditLog bool `json:"auditLog"`
	// AuditMaxBytes rotates the audit log past this size.
	AuditMaxBytes int64 `json:"auditMaxBytes"`
	// AuditKeep is how many rotated audit files are kept.
	AuditKeep int `json:"auditKeep"`
	// ReplyTimeout is how long a request waits for its reply before the
	// sender is told it is overdue (unless the request sets its own
	// reply_by).
	ReplyTimeout float64 `json:"replyTimeout"`
	// MaxFanout caps the recipients of one send to all, a capability, a
	// role or a pattern.
	MaxFanout int `json:"maxFanout"`
	// ProcessedMaxAge and ProcessedMaxBytes bound processed/ (0: no bound).
	ProcessedMaxAge   float64 `json:"processedMaxAge"`
	ProcessedMaxBytes int64   `json:"processedMaxBytes"`
	// ArchiveMaxAge and ArchiveMaxBytes bound archive/ (0: no bound).
	ArchiveMaxAge   float64 `json:"archiveMaxAge"`
	ArchiveMaxBytes int64   `json:"archiveMaxBytes"`
	// PruneInterval is how often the running agent applies the bounds.
	PruneInterval float64 `json:"pruneInterval"`
	// OrphanAfter is how long an agent must be gone before doctor calls
	// its waiting messages orphans.
	OrphanAfter float64 `json:"orphanAfter"`
}

// Day is a day in seconds, the unit of the configuration's durations.
const Day = 24 * 3600

// DefaultConversations returns the defaults: audit log on, rotated at
// 16 MiB keeping 4 files; replies due within an hour; at most 32
// recipients per send; processed/ kept 7 days and 256 MiB, archive/ 30
// days and 1 GiB, pruned hourly; agents gone 7 days leave orphans.
func DefaultConversations() Conversations {
	return Conversations{
		AuditLog:          true,
		AuditMaxBytes:     16 << 20,
		AuditKeep:         4,
		ReplyTimeout:      3600,
		MaxFanout:         32,
		ProcessedMaxAge:   7 * Day,
		ProcessedMaxBytes: 256 << 20,
		ArchiveMaxAge:     30 * Day,
		ArchiveMaxBytes:   1 << 30,
		PruneInterval:     3600,
		OrphanAfter:       7 * Day,
	}
}

// validate checks the sizes and counts; key names a key under the
// section. Config.validateDurations checks the durations.
func (c *Conversations) validate(key func(string) string) []error {
	var errs []error
	atLeast := func(name string, v, min int64) {
		if v < min {
			errs = append(errs, fmt.Errorf("%s: want at least %d, got %d", key(name), min, v))
		}
	}
	atLeast("auditMaxBytes", c.AuditMaxBytes, 4096)
	atLeast("auditKeep", int64(c.AuditKeep), 0)
	atLeast("maxFanout", int64(c.MaxFanout), 1)
	atLeast("processedMaxBytes", c.ProcessedMaxBytes, 0)
	atLeast("archiveMaxBytes", c.ArchiveMaxBytes, 0)
	return errs
}

// Retention returns the bounds of processed/ and archive/.
func (c *Conversations) Retention() store.Retention {
	return store.Retention{
		ProcessedMaxAge: seconds(c.ProcessedMaxAge), ProcessedMaxBytes: c.ProcessedMaxBytes,
		ArchiveMaxAge: seconds(c.ArchiveMaxAge), ArchiveMaxBytes: c.ArchiveMaxBytes,
	}
}
