package fsstore

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/mailbox/audit"
)

var _ driver.Auditor = (*Store)(nil)

// Record implements driver.Auditor: it appends ev to the audit log (when
// Options.AuditLog is set) and reports it to the Observer.
//
// A line about a step of every message (EventDelivered) is queued and
// written with its batch, as the store's own lines are; any other (an
// operator's action, an approval, a turn's usage) is rare and matters
// to a person, so it is written before Record returns and survives a
// crash of the process right after.
func (s *Store) Record(_ context.Context, ev driver.Event) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	if ev.Kind == driver.EventDelivered || s.audit == nil {
		return s.record(ev)
	}
	if ev.Time.IsZero() {
		ev.Time = s.opts.Now()
	}
	if err := s.audit.Append(ev); err != nil {
		return fmt.Errorf("audit log: %w", err)
	}
	if s.opts.Observer != nil {
		s.opts.Observer(ev)
	}
	return nil
}

// messageEvent is an event about msg (which may be nil) in agent's inbox.
func messageEvent(kind driver.EventKind, agent string, msg *envelope.Message, ref string) driver.Event {
	ev := driver.Event{Kind: kind, Agent: agent, Ref: ref}
	if msg != nil {
		ev.MessageID, ev.From, ev.ThreadID, ev.TaskID = msg.ID, msg.From, msg.ThreadID, msg.TaskOf()
	}
	return ev
}

// emitAfter runs fn, which may change the tree, and reports the event it
// returns (nil: none) like emit. With the audit log on, fn runs under the
// log's lock and its event is reported and appended before the lock is
// let go, so that no other writer logs an effect of fn's change (a
// receiver claiming the message fn delivered) before fn's own line.
func (s *Store) emitAfter(fn func() *driver.Event) {
	var ev *driver.Event
	run := func() *driver.Event {
		at := s.opts.Now() // before the change: its effects are timed after it
		if ev = fn(); ev != nil {
			if ev.Time.IsZero() {
				ev.Time = at
			}
			if s.opts.Observer != nil {
				s.opts.Observer(*ev)
			}
		}
		return ev
	}
	if s.audit == nil {
		run()
	} else if err := s.audit.Locked(run); err != nil && ev != nil {
		s.opts.Logger.Warn("audit log not written", "kind", ev.Kind, "id", ev.MessageID, "err", err)
	}
}

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
