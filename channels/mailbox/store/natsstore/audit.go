package natsstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var (
	_ driver.Auditor     = (*Store)(nil)
	_ driver.AuditReader = (*Store)(nil)
)

// headerTimeStamp is the header of a republished copy that holds the time
// the main stream stored the message (RFC 3339).
const headerTimeStamp = "Nats-Time-Stamp"

// Record implements driver.Auditor: it reports ev to the Observer and, with
// the audit log on (Options.AuditLog, and the history on), buffers it for
// the audit log (see auditLog): it is stored within auditDelay, on
// <prefix>.<agent>.audit of the history stream, JSON with driver.Event's
// fields. Writing never fails the call: an entry the server does not take
// is logged. With the audit log off it writes nothing.
func (s *Store) Record(ctx context.Context, ev driver.Event) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	if err := envelope.ValidateAgentID(auditActor(ev)); err != nil {
		return fmt.Errorf("audit event %s: %w", ev.Kind, err)
	}
	if ev.Time.IsZero() {
		ev.Time = s.opts.Now()
	}
	driver.Notify(s.opts.Observer, s.opts.Now, ev)
	if s.audit != nil {
		s.audit.add(s.recordSubject(ev), ev)
	}
	return nil
}

// auditActor is the agent that did what ev reports: the sender of a sent
// message, else the event's agent.
func auditActor(ev driver.Event) string {
	if ev.Kind == driver.EventSent && ev.From != "" {
		return ev.From
	}
	return ev.Agent
}

// recordSubject is the subject of the entry of an event given to Record:
// that of Options.Agent, the agent this store acts for, else that of the
// agent that acted. The store's own events go to the subject of the
// inbox they happened in (their Agent). Either way each agent writes
// only its own subject, the one per-agent permissions let it write (a
// channel records an overdue reply about another agent, as itself).
func (s *Store) recordSubject(ev driver.Event) string {
	if s.opts.Agent != "" {
		return s.names.audit(s.opts.Agent)
	}
	return s.names.audit(auditActor(ev))
}

// ReadAudit implements driver.AuditReader: the entries of every agent, in
// the order the history stream stored them. The history's copies of the
// messages are the "sent" entries (time: when the main stream stored the
// message; agent: the recipient; Ref: "#" and its sequence there), so they
// come before whatever their recipients wrote about them, and exist
// whatever the senders' audit log setting; the rest are the batches of
// the stores' own entries and of Record. Entries of this store still
// buffered are stored first; another process's come within auditDelay of
// being written. What does not decode is skipped. Reading needs the
// permission to read the whole history stream.
func (s *Store) ReadAudit(ctx context.Context, fn func(driver.Event) bool) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	if err := s.needHistory("read the audit log"); err != nil {
		return err
	}
	if s.audit != nil {
		fctx, cancel := context.WithTimeout(ctx, auditWait)
		ferr := s.audit.flush(fctx)
		cancel()
		if err := ctx.Err(); err != nil {
			return err
		}
		if ferr != nil {
			s.opts.Logger.Warn("reading the audit log without this store's last entries", "err", ferr)
		}
	}
	target, err := s.lastCopiedSeq(ctx)
	if err != nil {
		return err
	}
	var seen uint64 // the last main-stream sequence a copy came of
	return s.readHistory(ctx, []string{s.names.historyFilter(), s.names.auditFilter()}, func(m jetstream.Msg) bool {
		if tok := s.names.split(m.Subject()); len(tok) == 2 && tok[1] == auditToken {
			return splitAudit(m.Data(), fn)
		}
		if seq, err := strconv.ParseUint(m.Headers().Get(jetstream.SequenceHeader), 10, 64); err == nil {
			seen = max(seen, seq)
		}
		if ev, ok := s.sentEvent(m); ok {
			return fn(ev)
		}
		return true
	}, func() bool { return seen >= target })
}

// sentEvent is the "sent" entry a copy of a message stands for.
func (s *Store) sentEvent(m jetstream.Msg) (driver.Event, bool) {
	c, ok := s.decodeCopy(m)
	if !ok {
		return driver.Event{}, false
	}
	at, err := time.Parse(time.RFC3339Nano, m.Headers().Get(headerTimeStamp))
	if err != nil {
		if md, err := m.Metadata(); err == nil {
			at = md.Timestamp // when the history stored the copy
		}
	}
	return driver.Event{Time: at, Kind: driver.EventSent, Agent: c.agent, MessageID: c.msg.ID, From: c.msg.From,
		Ref: ref(c.seq), ThreadID: c.msg.ThreadID, TaskID: c.msg.TaskOf()}, true
}

// lastCopiedSeq is the main-stream sequence of the last message the
// stream republished, when its copy may still be on its way to the
// history stream (stored within catchUpWait); else 0, and readers do not
// wait for it.
func (s *Store) lastCopiedSeq(ctx context.Context) (uint64, error) {
	if s.stream.CachedInfo().Config.RePublish == nil {
		return 0, nil
	}
	raw, err := s.stream.GetLastMsgForSubject(ctx, s.names.republish().Source)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("state of stream %s: %w", s.opts.Stream, err)
	}
	if time.Since(raw.Time) > catchUpWait { // server time: not the store's clock, which may be a test's
		return 0, nil
	}
	return raw.Sequence, nil
}
