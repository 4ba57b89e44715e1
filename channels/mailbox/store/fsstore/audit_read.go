package fsstore

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/mailbox/audit"
)

var _ driver.AuditReader = (*Store)(nil)

// ReadAudit implements driver.AuditReader: it reads the audit log of the
// root (manifest.jsonl and its rotated files, oldest first, see
// audit.Read), which every process with Options.AuditLog on appends to;
// this store's own setting does not matter. A root without a log has no
// entries; lines that cannot be decoded are skipped.
func (s *Store) ReadAudit(ctx context.Context, fn func(driver.Event) bool) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if s.audit != nil {
		_ = s.audit.Flush() // this process's queued lines too; a failure is the writer's to report
	}
	_, err := audit.Read(ctx, s.root, audit.Filter{}, func(e audit.Entry) bool { return fn(e.Event) })
	return err
}
