package channels

import (
	"fmt"
	"maps"
	"slices"

	"github.com/switchboard-dev/switchboard/config"
)

// Checker decodes and validates a channel type's config section without
// building or opening anything, for `switchboard config check`. Errors
// name the key path, as a Factory's do.
type Checker func(section config.Section) error

// RegisterChecker adds the Checker of a channel type, registered or to be.
// It panics if typ is empty, c is nil, or typ has a checker already.
func (r *Registry) RegisterChecker(typ string, c Checker) {
	if typ == "" || c == nil {
		panic(fmt.Sprintf("channels: RegisterChecker of type %q needs a name and a checker", typ))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.checkers[typ]; dup {
		panic(fmt.Sprintf("channels: RegisterChecker called twice for type %q", typ))
	}
	if r.checkers == nil {
		r.checkers = map[string]Checker{}
	}
	r.checkers[typ] = c
}

// Check checks section with the Checker of channel type typ. A type
// with a factory and no checker is decoded by nothing: ok is false then,
// as for a type that is not registered.
func (r *Registry) Check(typ string, section config.Section) (ok bool, err error) {
	r.mu.RLock()
	c, ok := r.checkers[typ]
	r.mu.RUnlock()
	if !ok {
		return false, nil
	}
	return true, c(section)
}

// RegisterChecker adds a Checker to the default registry (see
// Registry.RegisterChecker). Channel packages call it from init.
func RegisterChecker(typ string, c Checker) { defaultRegistry.RegisterChecker(typ, c) }

// CheckConfig checks every channel section of cfg, enabled or not, and
// records in cfg.Report what became of it, as Build would: a type with a
// Checker is checked by it; a type this registry lacks is ignored when the
// section is disabled or nanobot has the type, and an error otherwise; a
// type with a factory and no Checker is recorded as used, unchecked.
func (r *Registry) CheckConfig(cfg *config.Config) {
	for _, name := range slices.Sorted(maps.Keys(cfg.Channels)) {
		section := cfg.Channels[name]
		if ok, err := r.Check(name, section); ok {
			if err == nil && section.Enabled() {
				if l, isList := section.Raw["allowFrom"].([]any); isList && len(l) == 0 {
					err = errEmptyAllowFrom(name) // as Manager.Start refuses it
				}
			}
			section.Invalid(err)
			continue
		}
		if _, err := r.Lookup(name); err != nil {
			section.Invalid(notBuilt(r, section, name, err))
			continue
		}
		section.Claim()
	}
}

// errEmptyAllowFrom is the error of channel name, enabled with an empty
// allowFrom list: Manager.Start refuses it, and CheckConfig reports it.
func errEmptyAllowFrom(name string) error {
	return fmt.Errorf("channels.%s.allowFrom: empty list denies every sender; "+
		"list the allowed sender ids, or [\"*\"] to allow all", name)
}
