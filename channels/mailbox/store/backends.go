package store

import (
	"fmt"
	"slices"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Factory opens a backend from its Config (see driver.Factory).
type Factory = driver.Factory

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

// Open opens the backend called name and returns the store over it,
// logging to cfg.Logger.
func (r *Backends) Open(name string, cfg Config) (*Store, error) {
	r.mu.RLock()
	f, ok := r.factories[name]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown mailbox backend %q (known: %v; forgotten import?)", name, r.Names())
	}
	be, err := f(cfg)
	if err != nil {
		return nil, err
	}
	return New(be, cfg.Logger), nil
}

var defaultBackends Backends

// Register adds a backend to the default registry; backend packages call
// it from init (see Registry.Register).
func Register(name string, f Factory) { defaultBackends.Register(name, f) }

// Known reports whether the default registry has a backend called name.
func Known(name string) bool { return defaultBackends.Known(name) }

// Names returns the backends of the default registry, sorted.
func Names() []string { return defaultBackends.Names() }

// Open opens the backend called name from the default registry, as
// database/sql's Open does: the store over it (see Backends.Open).
func Open(name string, cfg Config) (*Store, error) { return defaultBackends.Open(name, cfg) }

// RegisterWhere adds a description of where a backend's store is to the
// default registry (see Backends.RegisterWhere).
func RegisterWhere(name string, where func(Config) string) {
	defaultBackends.RegisterWhere(name, where)
}

// Where says where a store of the default registry is (see
// Backends.Where).
func Where(name string, cfg Config) string { return defaultBackends.Where(name, cfg) }
