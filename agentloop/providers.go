package agentloop

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/config"
)

// ProviderSettings is what a ProviderFactory gets: the provider a
// configuration chose (see package agentloop/provider/catalog), with the
// endpoint, key and model already resolved.
type ProviderSettings struct {
	// Name is the provider's name in the configuration ("deepseek", a
	// custom entry's name, "scripted").
	Name string
	// Config is the provider's entry of the providers section (its
	// timeout, retries, extra headers).
	Config config.ProviderConfig
	// APIKey goes to APIBase only ("" for none).
	APIKey string
	// APIBase is the endpoint requests go to.
	APIBase string
	// Model is the model to ask for ("" leaves it to each request).
	Model string
	// HTTPClient, when set, makes the requests (tests, proxies).
	HTTPClient *http.Client
}

// ProviderFactory builds a provider from its settings. Errors say what is
// wrong with the settings; the caller prefixes the key path.
type ProviderFactory func(s ProviderSettings) (agent.Provider, error)

// ErrProviderNotLinked is returned (wrapped) by a lookup of a provider kind
// that no linked package registered.
var ErrProviderNotLinked = errors.New("is not in this build")

// providerPackages is where this module's provider packages are: each is
// named by the kind it registers.
const providerPackages = "github.com/switchboard-dev/switchboard/agentloop/provider/"

// ProviderRegistry maps provider kinds (the API a provider speaks:
// "openai", "anthropic", "scripted") to factories. The zero value is not
// usable; call NewProviderRegistry. Programs use the default registry
// through RegisterProvider and LookupProvider; tests make their own.
type ProviderRegistry struct {
	mu        sync.RWMutex
	factories map[string]ProviderFactory
}

// NewProviderRegistry returns an empty ProviderRegistry.
func NewProviderRegistry() *ProviderRegistry {
	return &ProviderRegistry{factories: map[string]ProviderFactory{}}
}

// Register adds a provider kind. It panics if kind is empty, f is nil, or
// kind is already registered: these are programming errors found at
// start-up.
func (r *ProviderRegistry) Register(kind string, f ProviderFactory) {
	if kind == "" {
		panic("agentloop: RegisterProvider with an empty kind")
	}
	if f == nil {
		panic(fmt.Sprintf("agentloop: RegisterProvider of kind %q with a nil factory", kind))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.factories[kind]; dup {
		panic(fmt.Sprintf("agentloop: RegisterProvider called twice for kind %q", kind))
	}
	r.factories[kind] = f
}

// Lookup returns the factory of a provider kind; an error wrapping
// ErrProviderNotLinked when no package registered it.
func (r *ProviderRegistry) Lookup(kind string) (ProviderFactory, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.factories[kind]
	if !ok {
		return nil, fmt.Errorf("provider kind %q %w (forgotten import of %s%s?)", kind, ErrProviderNotLinked, providerPackages, kind)
	}
	return f, nil
}

// Kinds returns the registered kinds, sorted.
func (r *ProviderRegistry) Kinds() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	kinds := make([]string, 0, len(r.factories))
	for k := range r.factories {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

var defaultProviders = NewProviderRegistry()

// DefaultProviderRegistry returns the registry that RegisterProvider,
// LookupProvider and Providers use.
func DefaultProviderRegistry() *ProviderRegistry { return defaultProviders }

// RegisterProvider adds a provider kind to the default registry (see
// ProviderRegistry.Register). Provider packages call it from init, so
// that a program links the providers it imports, and only those.
func RegisterProvider(kind string, f ProviderFactory) { defaultProviders.Register(kind, f) }

// LookupProvider finds a provider kind in the default registry.
func LookupProvider(kind string) (ProviderFactory, error) { return defaultProviders.Lookup(kind) }

// Providers lists the default registry's provider kinds, sorted.
func Providers() []string { return defaultProviders.Kinds() }
