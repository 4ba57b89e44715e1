package mailbox_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
)

// TestConfigBoundsEveryDuration: every duration key refuses a value that
// would overflow a time.Duration (or panic a ticker) and one so small it
// keeps a core busy, with an error naming the key.
func TestConfigBoundsEveryDuration(t *testing.T) {
	t.Parallel()
	keys := map[string]func(*mailbox.Config) *float64{
		"pollInterval":      func(c *mailbox.Config) *float64 { return &c.PollInterval },
		"heartbeatInterval": func(c *mailbox.Config) *float64 { return &c.HeartbeatInterval },
		"offlineAfter":      func(c *mailbox.Config) *float64 { return &c.OfflineAfter },
		"taskTimeout":       func(c *mailbox.Config) *float64 { return &c.TaskTimeout },
		"replyTimeout":      func(c *mailbox.Config) *float64 { return &c.ReplyTimeout },
		"pruneInterval":     func(c *mailbox.Config) *float64 { return &c.PruneInterval },
		"orphanAfter":       func(c *mailbox.Config) *float64 { return &c.OrphanAfter },
		"processedMaxAge":   func(c *mailbox.Config) *float64 { return &c.ProcessedMaxAge },
		"archiveMaxAge":     func(c *mailbox.Config) *float64 { return &c.ArchiveMaxAge },
	}
	for name, field := range keys {
		for _, v := range []float64{1e10, 1e-9, math.NaN(), math.Inf(1)} {
			cfg := mailbox.DefaultConfig()
			cfg.AgentID = "coder"
			*field(&cfg) = v
			if name == "heartbeatInterval" && v < 1 {
				cfg.OfflineAfter = 30
			}
			err := cfg.Validate("channels.mailbox")
			require.Error(t, err, "%s = %v", name, v)
			assert.Contains(t, err.Error(), "channels.mailbox."+name+": want a number of seconds from ", "%s = %v", name, v)
		}
	}
	cfg := mailbox.DefaultConfig()
	cfg.AgentID = "coder"
	cfg.PollInterval, cfg.HeartbeatInterval, cfg.TaskTimeout = 0.01, 0.02, 0.001
	cfg.ProcessedMaxAge, cfg.ArchiveMaxAge = 0, 365*mailbox.Day
	assert.NoError(t, cfg.Validate("channels.mailbox"), "the bounds themselves, and 0 for no limit")
}
