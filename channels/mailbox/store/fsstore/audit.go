package fsstore

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

var _ store.Auditor = (*Store)(nil)

// Record implements store.Auditor: it appends ev to the audit log (when
// Options.AuditLog is set) and reports it to the Observer.
func (s *Store) Record(_ context.Context, ev store.Event) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	return s.record(ev)
}

// messageEvent is an event about msg (which may be nil) in agent's inbox.
func messageEvent(kind store.EventKind, agent string, msg *envelope.Message, ref string) store.Event {
	ev := store.Event{Kind: kind, Agent: agent, Ref: ref}
	if msg != nil {
		ev.MessageID, ev.From, ev.ThreadID, ev.TaskID = msg.ID, msg.From, msg.ThreadID, msg.TaskOf()
	}
	return ev
}
