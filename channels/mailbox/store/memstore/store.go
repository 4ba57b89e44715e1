package memstore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Store is one connection to a Hub, as one process has it. Close releases
// its inboxes; the hub keeps everything else.
type Store struct {
	hub  *Hub
	opts Options

	mu      sync.Mutex
	closed  bool
	inboxes map[*Inbox]struct{}
}

var _ store.Backend = (*Store)(nil)

// New returns a Store on a hub of its own.
func New(opts Options) *Store { return NewHub().Open(opts) }

// Open returns a new Store on h.
func (h *Hub) Open(opts Options) *Store {
	opts.setDefaults()
	return &Store{hub: h, opts: opts, inboxes: map[*Inbox]struct{}{}}
}

// Hub returns the hub the store is on.
func (s *Store) Hub() *Hub { return s.hub }

// Close implements store.Backend: it closes the store's open inboxes (their
// unacknowledged deliveries go back to the front of the inbox).
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	open := make([]*Inbox, 0, len(s.inboxes))
	for in := range s.inboxes {
		open = append(open, in)
	}
	s.mu.Unlock()
	var errs []error
	for _, in := range open {
		errs = append(errs, in.Close())
	}
	return errors.Join(errs...)
}

func (s *Store) checkOpen(ctx context.Context) error {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return store.ErrClosed
	}
	return ctx.Err()
}

func (s *Store) emit(ev store.Event) {
	if s.opts.Observer == nil {
		return
	}
	if ev.Time.IsZero() {
		ev.Time = s.opts.Now()
	}
	s.opts.Observer(ev)
}

// Deliver implements store.Sender. The message is validated and encoded
// within the size cap; delivering a message that still waits in the inbox
// (same id, same bytes) again does nothing.
func (s *Store) Deliver(ctx context.Context, msg *envelope.Message) error {
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	data, err := encode(msg, s.opts.MaxMessageBytes)
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

// encode validates msg and encodes it within maxBytes.
func encode(msg *envelope.Message, maxBytes int64) ([]byte, error) {
	if msg == nil {
		return nil, errors.New("deliver: nil message")
	}
	if err := validID(msg.From); err != nil {
		return nil, fmt.Errorf("deliver %s: from: %w", msg.ID, err)
	}
	if err := validID(msg.To); err != nil {
		return nil, fmt.Errorf("deliver %s: to: %w", msg.ID, err)
	}
	if err := envelope.Validate(msg); err != nil {
		return nil, fmt.Errorf("deliver %s: %w", msg.ID, err)
	}
	if msg.Timestamp.IsZero() {
		return nil, fmt.Errorf("deliver %s: %w: missing timestamp", msg.ID, envelope.ErrMalformed)
	}
	data, err := envelope.Encode(msg)
	if err != nil {
		return nil, fmt.Errorf("deliver %s: encode: %w", msg.ID, err)
	}
	if n := int64(len(data)); n > maxBytes {
		return nil, fmt.Errorf("deliver %s to %q: message is %d bytes, over the limit of %d bytes: %w",
			msg.ID, msg.To, n, maxBytes, envelope.ErrTooLarge)
	}
	return data, nil
}
