package driver

import (
	"log/slog"
	"time"

	"github.com/switchboard-dev/switchboard/config"
)

// Config is what a backend is opened with: the keys of the
// channels.mailbox section every backend may use, and the backend's own
// section (channels.mailbox.<name>), which the backend decodes and
// validates itself.
type Config struct {
	// AgentID is the agent the store is opened for ("" for a tool that
	// acts for no agent in particular).
	AgentID string
	// Root is mailboxesRoot, as written (a leading "~/" not expanded).
	Root string
	// MaxMessageBytes caps one message.
	MaxMessageBytes int64
	// Fsync makes every delivery durable against a machine crash.
	Fsync bool
	// MaxDeliver is how many times a message that is never acknowledged
	// is handed out before it is set aside (0: the backend's default; a
	// backend with a setting of its own in Section may use that instead).
	MaxDeliver int
	// PollInterval is the rescan interval of a store that watches folders.
	PollInterval time.Duration
	// OfflineAfter is how old a heartbeat may be before its agent counts
	// as offline (a presence TTL).
	OfflineAfter time.Duration
	// AuditLog turns the audit log on; AuditMaxBytes rotates it and
	// AuditKeep is how many rotated files are kept (0: none).
	AuditLog      bool
	AuditMaxBytes int64
	AuditKeep     int
	// Section is the backend's own section; its Raw is nil when the
	// config has none.
	Section config.Section

	// Logger receives logs (nil discards).
	Logger *slog.Logger
	// Observer receives the store's events (may be nil).
	Observer Observer
	// NoCreate asks for a store that exists already, for reading: the
	// backend creates nothing (no folder, stream or bucket) and fails with
	// an error wrapping ErrNoStore when there is none.
	NoCreate bool
	// WatchOnly asks for a store that will only be watched (Watcher) and
	// closed, on a mailbox that may not exist yet. A backend that can
	// watch one (a broker: a subscription needs no stream) opens only
	// what watching needs, creates nothing and fails every other call;
	// one that cannot ignores WatchOnly and opens as NoCreate says.
	WatchOnly bool
}

// Factory opens a backend from its Config.
type Factory func(cfg Config) (Backend, error)
