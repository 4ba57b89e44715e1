package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/backoff"
	"github.com/switchboard-dev/switchboard/internal/fileinfo"
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

// BackendName is the value of channels.mailbox.backend that selects this
// store, the default.
const BackendName = "fs"

func init() {
	store.Register(BackendName, OpenBackend)
	store.RegisterWhere(BackendName, func(cfg driver.Config) string { return cfg.Root })
}

// OpenBackend is the driver.Factory of the folder store: the tree at
// mailboxesRoot ("~/" expanded). It has no section of its own.
func OpenBackend(cfg driver.Config) (driver.Backend, error) {
	if len(cfg.Section.Raw) > 0 {
		return nil, fmt.Errorf("%s: the folder store has no settings of its own; its keys are those of channels.mailbox (mailboxesRoot, fsync, pollInterval, maxDeliver)", cfg.Section.Path)
	}
	root, err := config.ExpandHome(cfg.Root)
	if err != nil {
		return nil, err
	}
	if cfg.NoCreate {
		if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("mailbox root %s: %w", root, driver.ErrNoStore)
		}
	}
	return Open(Options{
		Root:            root,
		MaxMessageBytes: cfg.MaxMessageBytes,
		NoSync:          !cfg.Fsync,
		MaxDeliver:      cfg.MaxDeliver,
		PollInterval:    cfg.PollInterval,
		Observer:        cfg.Observer,
		Logger:          cfg.Logger,
		AuditLog:        cfg.AuditLog,
		AuditMaxBytes:   cfg.AuditMaxBytes,
		AuditKeep:       AuditKeep(cfg.AuditKeep),
	})
}

// AuditKeep turns the config's auditKeep (rotated files kept, 0: none)
// into Options.AuditKeep (0: the default, negative: none).
func AuditKeep(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// ErrUnsupportedPlatform is returned by Open on a system without the file
// locks and O_NOFOLLOW the folder mailbox relies on (windows). The NATS
// backend works there.
var ErrUnsupportedPlatform = errors.New(`fsstore: the folder mailbox needs a unix system (file locks, O_NOFOLLOW); on windows use channels.mailbox.backend "nats"`)

var _ driver.SecretKeeper = (*Store)(nil)

// KeepsSecrets implements driver.SecretKeeper: an agent's records are
// files 0600 in its folder of a tree 0700 that no other user may own or
// write (see files.go), so its signing key may be one of them.
func (s *Store) KeepsSecrets() {}

// checkPrivate refuses a folder of the tree below the root (an agent's
// folder or one of its folders) that group or others can write to, or
// that another user owns: like the root (checkRoot), because whoever can
// write there can plant, alter or remove that agent's messages. A folder
// only others can read (nanobot makes them 0755) is used.
func checkPrivate(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return checkPrivateInfo(path, fi)
}

// checkPrivateInfo is checkPrivate on what an Lstat of path returned.
func checkPrivateInfo(path string, fi os.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("mailbox folder %s is writable by group or others (mode %04o), so they could plant or alter messages; run: chmod 700 %s (or switchboard doctor --fix)",
			path, perm, path)
	}
	if owner, ok := fileinfo.Owner(fi); ok {
		if uid := os.Geteuid(); owner != uid {
			return fmt.Errorf("mailbox folder %s is owned by uid %d, not by you (uid %d); run: chown %d %s && chmod 700 %s",
				path, owner, uid, uid, path, path)
		}
	}
	return nil
}

var _ driver.Pinger = (*Store)(nil)

// Ping implements driver.Pinger: the store is open and its root is still a
// folder this process can read.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	info, err := os.Lstat(s.root)
	if err != nil {
		return fmt.Errorf("mailbox root: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("mailbox root %s is no longer a folder", s.root)
	}
	f, err := os.Open(s.root)
	if err != nil {
		return fmt.Errorf("mailbox root: %w", err)
	}
	defer f.Close()
	if _, err := f.Readdirnames(1); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mailbox root %s: %w", s.root, err)
	}
	return nil
}

// fileLocks holds the process lock of each lock file the store's shared
// records and artifacts take (by path), as registryProcessLocks does for
// the registry: one goroutine of the process contends for the flock.
var fileLocks sync.Map // path → *processLock

// lockFile takes the exclusive flock on the file at path (created 0600,
// never followed through a symlink), after the process lock of that path,
// and returns the function that releases both. While another process
// holds the flock it tries again after short, growing waits that watch
// ctx (see lockRegistry for why flock is not waited on).
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	q, _ := fileLocks.LoadOrStore(path, &processLock{free: make(chan struct{})})
	plock := q.(*processLock)
	if err := plock.lock(ctx); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		plock.unlock()
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("lock %s: it is a symlink; refusing to follow it", path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	waits := lockRetry.Start()
	for {
		locked, err := tryLock(f)
		if err == nil && !locked {
			err = backoff.Sleep(ctx, clock.Real, waits.Next())
			if err == nil {
				continue
			}
		}
		if err != nil {
			f.Close()
			plock.unlock()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return func() {
			releaseLock(f)
			plock.unlock()
		}, nil
	}
}
