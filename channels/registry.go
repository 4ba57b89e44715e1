package channels

import (
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/config"
)

// Deps is what a Factory gets besides its own config section.
type Deps struct {
	Bus    *bus.Bus       // the bus the channel publishes to
	Logger *slog.Logger   // never nil when passed by the Manager
	Config *config.Config // the whole configuration, for shared settings
	Clock  clock.Clock    // the time of deadlines and tickers; nil: the real clock
}

// Factory builds a channel from its config section. It decodes the section
// into its own config struct (section.Decode) and validates it; errors must
// name the key path.
type Factory func(section config.Section, deps Deps) (Channel, error)

// Registry maps channel type names to factories. The zero value is not
// usable; call NewRegistry. Most programs use the default registry through
// the package-level Register and Lookup.
type Registry struct {
	mu        sync.RWMutex
	factories map[string]Factory
	checkers  map[string]Checker
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{factories: map[string]Factory{}} }

// Register adds a channel type. It panics if typ is empty, f is nil, or typ
// is already registered: these are programming errors found at start-up.
func (r *Registry) Register(typ string, f Factory) {
	if typ == "" {
		panic("channels: Register with an empty type name")
	}
	if f == nil {
		panic(fmt.Sprintf("channels: Register of type %q with a nil factory", typ))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.factories[typ]; dup {
		panic(fmt.Sprintf("channels: Register called twice for type %q", typ))
	}
	r.factories[typ] = f
}

// Lookup returns the factory of a channel type.
func (r *Registry) Lookup(typ string) (Factory, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.factories[typ]
	if !ok {
		return nil, fmt.Errorf("unknown channel type %q (forgotten import?)", typ)
	}
	return f, nil
}

// Types returns the registered type names, sorted.
func (r *Registry) Types() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	types := make([]string, 0, len(r.factories))
	for t := range r.factories {
		types = append(types, t)
	}
	slices.Sort(types)
	return types
}

var defaultRegistry = NewRegistry()

// DefaultRegistry returns the registry that Register and Lookup use.
func DefaultRegistry() *Registry { return defaultRegistry }

// Register adds a channel type to the default registry (see
// Registry.Register). Channel packages call it from init.
func Register(typ string, f Factory) { defaultRegistry.Register(typ, f) }

// Lookup finds a channel type in the default registry.
func Lookup(typ string) (Factory, error) { return defaultRegistry.Lookup(typ) }

// Types lists the default registry's channel types, sorted.
func Types() []string { return defaultRegistry.Types() }

// Decoded returns the Factory and the Checker of a channel type whose
// config section decode reads into a C, and build makes a channel of:
// the Factory decodes then builds; the Checker decodes only (without
// connecting), so that `config check` refuses what the Factory would.
func Decoded[C any, T Channel](decode func(config.Section) (C, error), build func(C, Deps) (T, error)) (Factory, Checker) {
	factory := func(section config.Section, deps Deps) (Channel, error) {
		cfg, err := decode(section)
		if err != nil {
			return nil, err
		}
		return build(cfg, deps)
	}
	check := func(section config.Section) error {
		_, err := decode(section)
		return err
	}
	return factory, check
}
