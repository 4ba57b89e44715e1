package store

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"
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

// Backends maps backend names to their factories. The zero value is
// empty and ready; most callers use the default one through Register and
// Open.
type Backends struct {
	mu        sync.RWMutex
	factories map[string]Factory
	wheres    map[string]func(Config) string
}

// Register makes a backend available as channels.mailbox.backend = name.
// It panics on an empty name, a nil factory or a duplicate.
func (r *Backends) Register(name string, f Factory) {
	if name == "" || f == nil {
		panic("store: Register needs a name and a factory")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.factories[name]; dup {
		panic(fmt.Sprintf("store: Register called twice for backend %q", name))
	}
	if r.factories == nil {
		r.factories = map[string]Factory{}
	}
	r.factories[name] = f
}

// RegisterWhere gives backend name a way to say, for people, where the
// store cfg opens is ("~/.nanobot/mailboxes", "NATS at nats://host:4222"),
// without opening it. It panics on an empty name or a nil function.
func (r *Backends) RegisterWhere(name string, where func(Config) string) {
	if name == "" || where == nil {
		panic("store: RegisterWhere needs a name and a function")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.wheres == nil {
		r.wheres = map[string]func(Config) string{}
	}
	r.wheres[name] = where
}

// Where says where the store of backend name that cfg opens is, for
// people: what the backend registered, else "the NAME store".
func (r *Backends) Where(name string, cfg Config) string {
	r.mu.RLock()
	where := r.wheres[name]
	r.mu.RUnlock()
	if where == nil {
		return "the " + name + " store"
	}
	return where(cfg)
}

// Known reports whether a backend of that name is registered.
func (r *Backends) Known(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.factories[name]
	return ok
}

// Names returns the registered backends, sorted.
func (r *Backends) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.factories))
	for n := range r.factories {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Open opens the backend called name.
func (r *Backends) Open(name string, cfg Config) (Backend, error) {
	r.mu.RLock()
	f, ok := r.factories[name]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown mailbox backend %q (known: %v; forgotten import?)", name, r.Names())
	}
	return f(cfg)
}

var defaultBackends Backends

// Register adds a backend to the default registry; backend packages call
// it from init (see Registry.Register).
func Register(name string, f Factory) { defaultBackends.Register(name, f) }

// Known reports whether the default registry has a backend called name.
func Known(name string) bool { return defaultBackends.Known(name) }

// Names returns the backends of the default registry, sorted.
func Names() []string { return defaultBackends.Names() }

// Open opens the backend called name from the default registry.
func Open(name string, cfg Config) (Backend, error) { return defaultBackends.Open(name, cfg) }

// RegisterWhere adds a description of where a backend's store is to the
// default registry (see Backends.RegisterWhere).
func RegisterWhere(name string, where func(Config) string) {
	defaultBackends.RegisterWhere(name, where)
}

// Where says where a store of the default registry is (see
// Backends.Where).
func Where(name string, cfg Config) string { return defaultBackends.Where(name, cfg) }
