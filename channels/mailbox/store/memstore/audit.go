package memstore

import (
	"context"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// AuditKeep is how many entries a Hub's audit log keeps: past it, the
// oldest are dropped. The log is always on and lives as long as the hub.
const AuditKeep = 10_000

var (
	_ driver.Auditor     = (*Store)(nil)
	_ driver.AuditReader = (*Store)(nil)
)

// Record implements driver.Auditor: ev, stamped with the store's clock when
// it has no time, goes to the hub's audit log and to the Observer.
func (s *Store) Record(ctx context.Context, ev driver.Event) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	s.hub.mu.Lock()
	ev = s.logLocked(ev)
	s.hub.mu.Unlock()
	s.notify(ev)
	return nil
}

// ReadAudit implements driver.AuditReader: it calls fn with the last
// AuditKeep events of the hub (those every Store on it reported and
// recorded), oldest first. fn runs without the hub's lock.
func (s *Store) ReadAudit(ctx context.Context, fn func(driver.Event) bool) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	s.hub.mu.Lock()
	log := slices.Clone(s.hub.audit[max(0, len(s.hub.audit)-AuditKeep):])
	s.hub.mu.Unlock()
	for _, ev := range log {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !fn(ev) {
			return nil
		}
	}
	return nil
}

// appendAuditLocked appends ev to the log. The log is cut back to its last
// AuditKeep entries each time it reaches twice that, so an append costs
// O(1) on average.
func (h *Hub) appendAuditLocked(ev driver.Event) {
	if len(h.audit) >= 2*AuditKeep {
		h.audit = slices.Clone(h.audit[len(h.audit)-AuditKeep:])
	}
	h.audit = append(h.audit, ev)
}
