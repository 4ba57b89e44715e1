package memstore

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Store is one connection to a Hub, as one process has it. Close releases
// its inboxes; the hub keeps everything else.
type Store struct {
	hub     *Hub
	opts    Options
	inboxes driver.InboxSet[*Inbox]
}

var _ driver.Backend = (*Store)(nil)

// New returns a Store on a hub of its own.
func New(opts Options) *Store { return NewHub().Open(opts) }

// Open returns a new Store on h.
func (h *Hub) Open(opts Options) *Store {
	opts.setDefaults()
	return &Store{hub: h, opts: opts}
}

// Hub returns the hub the store is on.
func (s *Store) Hub() *Hub { return s.hub }

// Close implements driver.Backend: it closes the store's open inboxes (their
// unacknowledged deliveries go back to the front of the inbox).
func (s *Store) Close() error {
	_, err := s.inboxes.Close()
	return err
}

func (s *Store) checkOpen(ctx context.Context) error {
	if err := s.inboxes.Err(); err != nil {
		return err
	}
	return ctx.Err()
}

// logLocked stamps ev with the store's clock (unless it has a time),
// appends it to the hub's audit log and returns it. The caller holds the
// hub's lock, so the log follows the order of the changes it reports, and
// passes the event to notify once it let go.
func (s *Store) logLocked(ev driver.Event) driver.Event {
	if ev.Time.IsZero() {
		ev.Time = s.opts.Now()
	}
	s.hub.appendAuditLocked(ev)
	return ev
}

// notify reports events to the Observer.
func (s *Store) notify(evs ...driver.Event) {
	for _, ev := range evs {
		driver.Notify(s.opts.Observer, s.opts.Now, ev)
	}
}

// messageEvent is an event of kind about msg in agent's inbox.
func messageEvent(kind driver.EventKind, agent string, msg *envelope.Message) driver.Event {
	return driver.Event{Kind: kind, Agent: agent, MessageID: msg.ID, From: msg.From, ThreadID: msg.ThreadID,
		TaskID: msg.TaskOf()}
}

// Deliver implements driver.Sender. The message is validated and encoded
// within the size cap; delivering a message that still waits in the inbox
// (same id, same bytes) again does nothing.
func (s *Store) Deliver(ctx context.Context, msg *envelope.Message) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	data, err := driver.EncodeForDelivery(msg, s.opts.MaxMessageBytes, envelope.Encode)
	if err != nil {
		return err
	}
	h := s.hub
	h.mu.Lock()
	q := h.queueLocked(msg.To)
	for _, it := range q.pending {
		if string(it.data) == string(data) {
			h.mu.Unlock()
			return nil
		}
	}
	h.pushLocked(msg.To, data, s.opts.Now())
	ev := s.logLocked(messageEvent(driver.EventSent, msg.To, msg))
	h.mu.Unlock()
	s.notify(ev)
	return nil
}
