package mailbox

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/config"
)

// BackendDeps is what a BackendFactory gets besides the config.
type BackendDeps struct {
	Logger   *slog.Logger
	Observer store.Observer // may be nil
	// NoCreate asks for a store that exists already, for reading: the
	// backend creates nothing (no folder, stream or bucket) and fails with
	// an error wrapping store.ErrNoStore when there is none.
	NoCreate bool
}

// BackendFactory opens a store from the mailbox config.
type BackendFactory func(cfg Config, deps BackendDeps) (store.Backend, error)

var (
	backendsMu sync.RWMutex
	backends   = map[string]BackendFactory{"fs": openFS}
)

// RegisterBackend makes a store available as channels.mailbox.backend =
// name. Backend packages call it from init. It panics on an empty name, a
// nil factory or a duplicate.
func RegisterBackend(name string, f BackendFactory) {
	if name == "" || f == nil {
		panic("mailbox: RegisterBackend needs a name and a factory")
	}
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if _, dup := backends[name]; dup {
		panic(fmt.Sprintf("mailbox: RegisterBackend called twice for %q", name))
	}
	backends[name] = f
}

func lookupBackend(name string) (BackendFactory, bool) {
	backendsMu.RLock()
	defer backendsMu.RUnlock()
	f, ok := backends[name]
	return f, ok
}

func backendNames() []string {
	backendsMu.RLock()
	defer backendsMu.RUnlock()
	names := make([]string, 0, len(backends))
	for n := range backends {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// OpenBackend opens the store cfg names.
func OpenBackend(cfg Config, deps BackendDeps) (store.Backend, error) {
	f, ok := lookupBackend(cfg.Backend)
	if !ok {
		return nil, fmt.Errorf("unknown mailbox backend %q (known: %v; forgotten import?)", cfg.Backend, backendNames())
	}
	return f(cfg, deps)
}

func openFS(cfg Config, deps BackendDeps) (store.Backend, error) {
	root, err := config.ExpandHome(cfg.MailboxesRoot)
	if err != nil {
		return nil, err
	}
	if deps.NoCreate {
		if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("mailbox root %s: %w", root, store.ErrNoStore)
		}
	}
	return fsstore.Open(fsstore.Options{
		Root:            root,
		MaxMessageBytes: cfg.MaxMessageBytes,
		NoSync:          !cfg.Fsync,
		PollInterval:    seconds(cfg.PollInterval),
		Observer:        deps.Observer,
		Logger:          deps.Logger,
		AuditLog:        cfg.AuditLog,
		AuditMaxBytes:   cfg.AuditMaxBytes,
		AuditKeep:       AuditKeep(cfg.AuditKeep),
	})
}

// AuditKeep turns the config's auditKeep (rotated files kept, 0: none)
// into fsstore.Options.AuditKeep (0: the default, negative: none).
func AuditKeep(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
