package store

import (
	"context"
	"log/slog"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Store is a mailbox store: the one type through which the mailbox
// channel, the command line, the console and the metrics use a backend,
// as database/sql's DB is for its drivers. It owns every check of what
// the backend can do beyond its primitives (package driver): a call the
// backend has goes to it, one it lacks is emulated from the primitives
// (noted at each method) or fails with an error wrapping ErrNotSupported.
// A Store is safe for concurrent use.
type Store struct {
	be        driver.Backend
	log       *slog.Logger
	approvals *Approvals
}

// New returns the store over backend be, which it closes on Close. log
// receives the store's warnings (nil discards them). Open opens a backend
// by name and calls New; New is for a backend opened by hand (a test, a
// tool that wraps one).
func New(be driver.Backend, log *slog.Logger) *Store {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{be: be, log: log}
	s.approvals = &Approvals{r: be, log: log}
	return s
}

// Deliver stores msg in the inbox of msg.To (see driver.Sender).
func (s *Store) Deliver(ctx context.Context, msg *envelope.Message) error {
	return s.be.Deliver(ctx, msg)
}

// UpdateCard applies update to agentID's card atomically (see
// driver.Registry).
func (s *Store) UpdateCard(ctx context.Context, agentID string, update func(*envelope.Card)) (envelope.Card, error) {
	return s.be.UpdateCard(ctx, agentID, update)
}

// LeaveCard applies update to agentID's card as UpdateCard does, for
// an update that may take effect after the caller has gone (see
// driver.CardLeaver): when ctx ends before the card is in the registry, a
// store that queues updates (the folder store) leaves it queued for the
// registry's next writer and reports visible false with no error. On any
// other store it is UpdateCard: visible, or an error.
func (s *Store) LeaveCard(ctx context.Context, agentID string, update func(*envelope.Card)) (visible bool, err error) {
	if l, ok := s.be.(driver.CardLeaver); ok {
		return l.LeaveCard(ctx, agentID, update)
	}
	if _, err := s.be.UpdateCard(ctx, agentID, update); err != nil {
		return false, err
	}
	return true, nil
}

// Card returns one agent's card, or an error wrapping ErrUnknownAgent.
func (s *Store) Card(ctx context.Context, agentID string) (envelope.Card, error) {
	return s.be.Card(ctx, agentID)
}

// Cards returns every card, sorted by agent id.
func (s *Store) Cards(ctx context.Context) ([]envelope.Card, error) { return s.be.Cards(ctx) }

// OpenInbox takes ownership of agentID's inbox until the Inbox is closed;
// it fails with ErrInboxBusy while another process holds it.
func (s *Store) OpenInbox(ctx context.Context, agentID string) (*Inbox, error) {
	in, err := s.be.OpenInbox(ctx, agentID)
	if err != nil {
		return nil, err
	}
	return &Inbox{in: in}, nil
}

// Close closes the backend and the inboxes still open on it.
func (s *Store) Close() error { return s.be.Close() }

// Ping returns nil when what holds the messages can be reached now, else
// why not: the backend's own check (the folder is there, the server
// answers), emulated by reading the cards.
func (s *Store) Ping(ctx context.Context) error {
	if p, ok := s.be.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	_, err := s.be.Cards(ctx)
	return err
}

// Record appends ev to the audit log (and reports it to the backend's
// Observer), for what is done beyond the store's own events. A store that
// keeps no audit log fails with ErrNotSupported.
func (s *Store) Record(ctx context.Context, ev Event) error {
	a, ok := s.be.(driver.Auditor)
	if !ok {
		return notSupported(CanAudit)
	}
	return a.Record(ctx, ev)
}

// ReadAudit calls fn with each entry of the audit log, oldest first,
// until fn returns false or ctx ends (see driver.AuditReader). A store
// whose log cannot be read back fails with ErrNotSupported.
func (s *Store) ReadAudit(ctx context.Context, fn func(Event) bool) error {
	r, ok := s.be.(driver.AuditReader)
	if !ok {
		return notSupported(CanReadAudit)
	}
	return r.ReadAudit(ctx, fn)
}

// Watch reports each message that arrives in agent's inbox (every
// agent's when agent is ""), without claiming it, until ctx ends (see
// driver.Watcher). A store that cannot follow messages fails with
// ErrNotSupported.
func (s *Store) Watch(ctx context.Context, agent string, w WatchFuncs) error {
	wa, ok := s.be.(driver.Watcher)
	if !ok {
		return notSupported(CanWatch)
	}
	return wa.Watch(ctx, agent, w)
}

// Heartbeat records that agentID is alive at now without rewriting its
// card (see driver.Heartbeater), and returns the card. It fails with
// ErrUnknownAgent when the agent has no card, and with ErrNotSupported on
// a store that renews heartbeats only with the card (UpdateCard).
func (s *Store) Heartbeat(ctx context.Context, agentID string, now time.Time, maxAge time.Duration) (envelope.Card, error) {
	hb, ok := s.be.(driver.Heartbeater)
	if !ok {
		return envelope.Card{}, notSupported(CanHeartbeat)
	}
	return hb.Heartbeat(ctx, agentID, now, maxAge)
}

// HasInbox reports whether agent has an inbox, registered or not (the
// folder store knows: a bare name with an inbox is that agent). A store
// that cannot tell fails with ErrNotSupported.
func (s *Store) HasInbox(agent string) (bool, error) {
	f, ok := s.be.(driver.InboxFinder)
	if !ok {
		return false, notSupported(CanFindInbox)
	}
	_, found, err := f.HasInbox(agent)
	return found, err
}
