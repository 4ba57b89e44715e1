package fsstore

import (
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Defaults for Options.
const (
	DefaultMaxMessageBytes = 1 << 20
	DefaultPollInterval    = 5 * time.Second
)

// Options configures a Store. Zero values take the defaults.
type Options struct {
	// Root is the mailbox tree (required; "~/" is not expanded here).
	Root string
	// MaxMessageBytes caps a message file; larger files are quarantined
	// without being decoded (default 1 MiB).
	MaxMessageBytes int64
	// NoSync skips fsync on delivery and acknowledgement: faster, but a
	// machine crash (not a process crash) can lose recent messages.
	NoSync bool
	// PollInterval is the period of the safety-net rescan of an inbox
	// (default 5s); fsnotify events are the normal trigger.
	PollInterval time.Duration
	// Observer receives an Event for each message handled; may be nil.
	Observer store.Observer
	// Logger receives warnings; nil discards.
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
}

func (o *Options) setDefaults() {
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Store is the filesystem mailbox store. It is safe for concurrent use, and
// any number of processes may use the same root at once.
type Store struct {
	root string
	opts Options

	mu      sync.Mutex
	closed  bool
	inboxes map[*Inbox]struct{} // open inboxes, closed with the store
}

var _ store.Backend = (*Store)(nil)

// Root returns the store's root folder.
func (s *Store) Root() string { return s.root }

func (s *Store) emit(ev store.Event) {
	if s.opts.Observer == nil {
		return
	}
	if ev.Time.IsZero() {
		ev.Time = s.opts.Now()
	}
	s.opts.Observer(ev)
}
