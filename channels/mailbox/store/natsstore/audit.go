package natsstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

var (
	_ store.Auditor     = (*Store)(nil)
	_ store.AuditReader = (*Store)(nil)
)

// auditMaxPending bounds the audit entries published and not yet
// confirmed; past it a publish waits a little for room.
const auditMaxPending = 4096

// auditWait bounds how long an event that ends a message's way waits for
// the server to confirm the audit entries written before it, and Close
// for the entries written before it.
const auditWait = 5 * time.Second

// newAuditPublisher returns the JetStream context of the audit log: its
// publishes do not wait for their acknowledgement, and one the server
// refuses is logged.
func (s *Store) newAuditPublisher() (jetstream.JetStream, error) {
	return jetstream.New(s.nc, jetstream.WithPublishAsyncMaxPending(auditMaxPending),
		jetstream.WithPublishAsyncErrHandler(func(_ jetstream.JetStream, m *nats.Msg, err error) {
			s.opts.Logger.Warn("audit log entry not stored", "subject", m.Subject, "err", err)
		}),
		jetstream.WithPublishAsyncAckHandler(func(jetstream.JetStream, *nats.Msg, *jetstream.PubAck) {
			s.auditSlow.Store(false)
		}))
}

// Record implements store.Auditor: it reports ev to the Observer and, with
// Options.AuditLog, publishes it to the audit log on the history stream
// (subject <prefix>.<agent>.audit, JSON with store.Event's fields) without
// waiting for the server's acknowledgement; a refused entry is logged.
// With AuditLog off it writes nothing.
func (s *Store) Record(ctx context.Context, ev store.Event) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	if err := envelope.ValidateAgentID(auditActor(ev)); err != nil {
		return fmt.Errorf("audit event %s: %w", ev.Kind, err)
	}
	if ev.Time.IsZero() {
		ev.Time = s.opts.Now()
	}
	store.Notify(s.opts.Observer, s.opts.Now, ev)
	if !s.opts.AuditLog {
		return nil
	}
	_, err := s.publishAudit(ev)
	return err
}

// auditActor is the agent that did what ev reports, whose subject the
// entry goes to (so per-agent permissions can let each agent write only
// its own): the sender of a sent message, else the event's agent.
func auditActor(ev store.Event) string {
	if ev.Kind == store.EventSent && ev.From != "" {
		return ev.From
	}
	return ev.Agent
}

// publishAudit publishes ev to the audit log without waiting.
func (s *Store) publishAudit(ev store.Event) (jetstream.PubAckFuture, error) {
	data, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	f, err := s.audit.PublishMsgAsync(&nats.Msg{Subject: s.names.audit(auditActor(ev)), Data: data})
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	return f, nil
}

// auditSent writes the sent entry of msg, with the audit log on. Deliver
// calls it before it publishes msg, on the same connection: the history
// stream then stores the entry before the message can reach its
// recipient, whose entries (claimed, processed) come after it whichever
// process writes them. A send that fails is in the log all the same.
func (s *Store) auditSent(msg *envelope.Message) {
	if !s.opts.AuditLog {
		return
	}
	ev := store.Event{Time: s.opts.Now(), Kind: store.EventSent, Agent: msg.To, MessageID: msg.ID,
		From: msg.From, ThreadID: msg.ThreadID, TaskID: msg.TaskOf()}
	if _, err := s.publishAudit(ev); err != nil {
		s.opts.Logger.Warn("audit log not written", "kind", ev.Kind, "id", ev.MessageID, "err", err)
	}
}

// settles reports whether an event of kind ends a message's way through
// an inbox: its entry, and with it every entry the store wrote before, is
// stored before the event is reported (or the operation returns), so
// that any process reading the log then finds the message's whole story.
func settles(kind store.EventKind) bool {
	switch kind {
	case store.EventProcessed, store.EventRefused, store.EventQuarantined, store.EventDuplicate, store.EventSwept:
		return true
	}
	return false
}

// awaitAudit waits, within auditWait, for the server to store the entry
// of f (and so every entry this store published before it: the stream
// stores a connection's entries in order). After a wait in vain it waits
// no more until the server confirms an entry again.
func (s *Store) awaitAudit(f jetstream.PubAckFuture) {
	if f == nil || s.auditSlow.Load() {
		return
	}
	t := time.NewTimer(auditWait)
	defer t.Stop()
	select {
	case <-f.Ok():
	case <-f.Err(): // logged by the error handler
	case <-t.C:
		s.auditSlow.Store(true)
		s.opts.Logger.Warn("audit log entries not confirmed by the server; going on without waiting for them",
			"waited", auditWait)
	}
}

// waitAudit waits, within auditWait, until the server confirmed the
// audit entries published so far.
func (s *Store) waitAudit() {
	if s.audit == nil || s.audit.PublishAsyncPending() == 0 || s.nc.IsClosed() {
		return
	}
	t := time.NewTimer(auditWait)
	defer t.Stop()
	select {
	case <-s.audit.PublishAsyncComplete():
	case <-t.C:
		s.opts.Logger.Warn("audit log entries not confirmed by the server", "entries", s.audit.PublishAsyncPending())
	}
}

// ReadAudit implements store.AuditReader: the entries of every agent, in
// the order the history stream stored them (entries published by
// different processes at nearly the same time may be stored in another
// order than their times say). Entries that do not decode are skipped.
// Reading needs the permission to read the whole history stream.
func (s *Store) ReadAudit(ctx context.Context, fn func(store.Event) bool) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	return s.readHistory(ctx, []string{s.names.auditFilter()}, func(m jetstream.Msg) bool {
		var ev store.Event
		if err := json.Unmarshal(m.Data(), &ev); err != nil || ev.Kind == "" {
			return true
		}
		return fn(ev)
	}, nil)
}
