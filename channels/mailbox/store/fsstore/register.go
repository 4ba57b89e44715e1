package fsstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/config"
)

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
