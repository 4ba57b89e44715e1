package memstore

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Store is one connection to a Hub, as one process has it. Close releases
// its inboxes; the hub keeps everything else.
type Store struct {
	hub     *Hub
	opts    Options
	inboxes store.InboxSet[*Inbox]
}

var _ store.Backend = (*Store)(nil)

// New returns a Store on a hub of its own.
func New(opts Options) *Store { return NewHub().Open(opts) }

// Open returns a new Store on h.
func (h *Hub) Open(opts Options) *Store {
	opts.setDefaults()
	return &Store{hub: h, opts: opts}
}

// Hub returns the hub the store is on.
func (s *Store) Hub() *Hub { return s.hub }

// Close implements store.Backend: it closes the store's open inboxes (their
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

func (s *Store) emit(ev store.Event) { store.Notify(s.opts.Observer, s.opts.Now, ev) }

// Deliver implements store.Sender. The message is validated and encoded
// within the size cap; delivering a message that still waits in the inbox
// (same id, same bytes) again does nothing.
func (s *Store) Deliver(ctx context.Context, msg *envelope.Message) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	data, err := store.EncodeForDelivery(msg, s.opts.MaxMessageBytes, envelope.Encode)
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
	h.pushLocked(msg.To, data)
	h.mu.Unlock()
	s.emit(store.Event{Kind: store.EventSent, Agent: msg.To, MessageID: msg.ID, From: msg.From})
	return nil
}
