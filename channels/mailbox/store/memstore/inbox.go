package memstore

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Inbox is one agent's inbox, owned from Store.OpenInbox until Close.
type Inbox struct {
	s     *Store
	agent string
	sem   chan struct{} // held by the running Next, and by Close for good
	done  chan struct{}
	once  sync.Once
	// closed is guarded by the hub's lock.
	closed bool
}

var _ driver.Inbox = (*Inbox)(nil)

// ref is the Delivery.Ref of this store.
type ref struct {
	in    *Inbox
	it    *item
	id    string
	own   bool
	state int // 0 claimed, 1 acked, 2 quarantined; guarded by the hub's lock
}

// OpenInbox implements driver.Backend. It fails with an error wrapping
// driver.ErrInboxBusy while another Inbox of the hub holds agentID's.
func (s *Store) OpenInbox(ctx context.Context, agentID string) (driver.Inbox, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	if err := validID(agentID); err != nil {
		return nil, fmt.Errorf("open inbox: %w", err)
	}
	in := &Inbox{s: s, agent: agentID, sem: make(chan struct{}, 1), done: make(chan struct{})}
	h := s.hub
	h.mu.Lock()
	q := h.queueLocked(agentID)
	if q.owner != nil {
		h.mu.Unlock()
		return nil, fmt.Errorf("inbox of %q is open elsewhere: %w", agentID, driver.ErrInboxBusy)
	}
	q.owner = in
	h.mu.Unlock()
	if err := s.inboxes.Add(in); err != nil {
		return nil, err
	}
	return in, nil
}

// Close implements driver.Inbox. Deliveries not acknowledged go back to the
// front of the inbox, marked redelivered, in the order they arrived.
func (in *Inbox) Close() error {
	in.once.Do(func() {
		close(in.done)
		in.sem <- struct{}{} // wait for a running Next; none runs after
		h := in.s.hub
		h.mu.Lock()
		in.closed = true
		q := h.inboxes[in.agent]
		var back []*item
		for seq, it := range q.claimed {
			it.redelivered = true
			back = append(back, it)
			delete(q.claimed, seq)
		}
		slices.SortFunc(back, func(a, b *item) int { return cmp.Compare(a.seq, b.seq) })
		q.pending = append(back, q.pending...)
		q.inflight = map[string]int{}
		q.owner = nil
		q.poke()
		h.mu.Unlock()
		in.s.inboxes.Remove(in)
	})
	return nil
}

// Next implements driver.Inbox.
func (in *Inbox) Next(ctx context.Context) (*driver.Delivery, error) {
	if err := driver.TakeTurn(ctx, in.sem, in.done); err != nil {
		return nil, err
	}
	defer func() { <-in.sem }()
	h := in.s.hub
	for {
		if err := driver.StillOpen(ctx, in.done); err != nil {
			return nil, err
		}
		h.mu.Lock()
		q := h.inboxes[in.agent]
		if len(q.pending) == 0 {
			changed := q.changed
			h.mu.Unlock()
			select {
			case <-changed:
			case <-in.done:
				return nil, driver.ErrClosed
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			continue
		}
		it := q.pending[0]
		q.pending = q.pending[1:]
		d, ev := in.takeLocked(q, it)
		ev = in.s.logLocked(ev)
		h.mu.Unlock()
		in.s.notify(ev)
		if d != nil {
			return d, nil
		}
	}
}

// takeLocked decodes it and claims it, or sets it aside, or drops it as a
// duplicate; it returns the delivery (nil if none) and the event to report.
func (in *Inbox) takeLocked(q *queue, it *item) (*driver.Delivery, driver.Event) {
	ev := driver.Event{Agent: in.agent}
	var msg *envelope.Message
	var err error
	if int64(len(it.data)) > in.s.opts.MaxMessageBytes {
		err = fmt.Errorf("%w: over %d bytes", envelope.ErrTooLarge, in.s.opts.MaxMessageBytes)
	} else {
		msg, err = envelope.Decode(bytes.NewReader(it.data), in.s.opts.MaxMessageBytes)
	}
	if err == nil && msg.To != in.agent {
		err = fmt.Errorf("addressed to %q, not to %q", msg.To, in.agent)
	}
	if msg != nil {
		ev = messageEvent("", in.agent, msg)
	}
	if err != nil {
		q.rejected = append(q.rejected, Rejected{Data: it.data, Reason: err.Error(), MessageID: ev.MessageID})
		ev.Kind, ev.Reason = driver.EventQuarantined, err.Error()
		return nil, ev
	}
	own := envelope.IsOwnID(msg.ID)
	if own && (q.handled[msg.ID] || q.inflight[msg.ID] > 0) {
		ev.Kind = driver.EventDuplicate
		return nil, ev
	}
	if own {
		q.inflight[msg.ID]++
	}
	q.claimed[it.seq] = it
	ev.Kind = driver.EventClaimed
	return &driver.Delivery{Message: msg, Redelivered: it.redelivered,
		Ref: &ref{in: in, it: it, id: msg.ID, own: own}}, ev
}

// Ack implements driver.Inbox. Acknowledging twice is harmless.
func (in *Inbox) Ack(_ context.Context, d *driver.Delivery) error {
	return in.settle(d, 1, "")
}

// Quarantine implements driver.Inbox: the message is kept in the inbox's
// Rejected list with the reason and reported as EventRefused.
func (in *Inbox) Quarantine(_ context.Context, d *driver.Delivery, reason string) error {
	return in.settle(d, 2, reason)
}

func (in *Inbox) settle(d *driver.Delivery, state int, reason string) error {
	if d == nil {
		return errors.New("settle: nil delivery")
	}
	r, ok := d.Ref.(*ref)
	if !ok || r.in != in {
		return fmt.Errorf("delivery was not handed out by the inbox of %q", in.agent)
	}
	h := in.s.hub
	h.mu.Lock()
	switch {
	case in.closed:
		h.mu.Unlock()
		return driver.ErrClosed
	case r.state == state:
		h.mu.Unlock()
		return nil
	case r.state != 0:
		h.mu.Unlock()
		return fmt.Errorf("message %s was already settled otherwise (acknowledged or quarantined)", r.id)
	}
	q := h.inboxes[in.agent]
	r.state = state
	delete(q.claimed, r.it.seq)
	if r.own {
		q.remember(r.id)
		if q.inflight[r.id]--; q.inflight[r.id] <= 0 {
			delete(q.inflight, r.id)
		}
	}
	ev := messageEvent(driver.EventProcessed, in.agent, d.Message)
	if state == 2 {
		q.rejected = append(q.rejected, Rejected{Data: r.it.data, Reason: reason, MessageID: r.id})
		ev.Kind, ev.Reason = driver.EventRefused, reason
	} else {
		r.it.about, r.it.name = ev, envelope.FileName(d.Message)
		q.processed = append(q.processed, r.it)
	}
	ev = in.s.logLocked(ev)
	h.mu.Unlock()
	in.s.notify(ev)
	return nil
}
