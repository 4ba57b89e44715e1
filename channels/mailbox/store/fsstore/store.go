package fsstore

import (
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/mailbox/audit"
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
	Observer driver.Observer
	// Logger receives warnings; nil discards.
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// MaxDeliver is how many times a message that is never acknowledged
	// (its receiver crashes on it) is handed out before it is set aside in
	// rejected/ (default DefaultMaxDeliver; negative: never).
	MaxDeliver int
	// AuditLog appends every event to <root>/manifest.jsonl (package
	// audit), whole lines even with many processes writing.
	AuditLog bool
	// AuditMaxBytes and AuditKeep rotate the audit log (see
	// audit.Options; zero takes its defaults).
	AuditMaxBytes int64
	AuditKeep     int
	// IndexDir is the folder where Skim keeps its index of message
	// summaries, one file per agent (default: a folder named after the
	// root under the user's cache folder, os.UserCacheDir()/switchboard/
	// index). The index is a cache outside the tree: removing it costs
	// the next Skim a read of every message. NoIndex turns it off.
	IndexDir string
	NoIndex  bool
}

func (o *Options) setDefaults() {
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if o.PollInterval <= 0 {
		o.PollInterval = DefaultPollInterval
	}
	if o.MaxDeliver == 0 {
		o.MaxDeliver = DefaultMaxDeliver
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

	audit *audit.Writer // nil unless Options.AuditLog

	indexDir string // "": no index of message summaries

	inboxes driver.InboxSet[*Inbox] // open inboxes, closed with the store

	knownDirs sync.Map // agent id -> *checkedDirs, the folders deliveryDir checked

	inboxSyncs inboxSyncs // shares inbox fsyncs among concurrent Delivers

	hub *watchHub // nil: processHub, the process's one fsnotify watcher

	// Tests: called when a card is queued, and after a merge wrote the
	// registry with the cards it merged.
	onQueued func(name string)
	onMerged func(cards int)
}

// watchHub returns the fsnotify watcher the store's inboxes and watches
// share.
func (s *Store) watchHub() *watchHub {
	if s.hub != nil {
		return s.hub
	}
	return processHub
}

var (
	_ driver.Backend       = (*Store)(nil)
	_ driver.InboxFinder   = (*Store)(nil)
	_ driver.PendingLister = (*Store)(nil)
	_ driver.InboxCounter  = (*Store)(nil)
)

// Root returns the store's root folder.
func (s *Store) Root() string { return s.root }

// emit reports ev to the audit log and the Observer. A failure to write
// the audit log is logged and never stops the mailbox.
func (s *Store) emit(ev driver.Event) {
	if err := s.record(ev); err != nil {
		s.opts.Logger.Warn("audit log not written", "kind", ev.Kind, "id", ev.MessageID, "err", err)
	}
}

// record reports ev to the Observer and queues its audit log line
// (audit.Writer.Enqueue): the line is written in one write with the
// others queued meanwhile, before any line this process writes later.
func (s *Store) record(ev driver.Event) error {
	if ev.Time.IsZero() {
		ev.Time = s.opts.Now()
	}
	if s.audit != nil {
		s.audit.Enqueue(ev)
	}
	if s.opts.Observer != nil {
		s.opts.Observer(ev)
	}
	return nil
}
