package store

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Inbox is one agent's stream of incoming messages, owned by this process
// until it is closed (Store.OpenInbox).
type Inbox struct {
	in driver.Inbox
}

// Next claims and returns the next message, waiting until one arrives or
// ctx ends (see driver.Inbox).
func (i *Inbox) Next(ctx context.Context) (*Delivery, error) { return i.in.Next(ctx) }

// Ack marks a delivery as handled; it will not be delivered again.
func (i *Inbox) Ack(ctx context.Context, d *Delivery) error { return i.in.Ack(ctx, d) }

// AckPipelined acknowledges d as Ack does, possibly before the
// acknowledgement is durable; durable (unless nil) is called once it is,
// or with the error that kept it from being (see driver.PipelinedAcker).
// On an inbox without pipelining it is Ack, after which durable is called
// with nil.
func (i *Inbox) AckPipelined(ctx context.Context, d *Delivery, durable func(error)) error {
	if p, ok := i.in.(driver.PipelinedAcker); ok {
		return p.AckPipelined(ctx, d, durable)
	}
	if err := i.in.Ack(ctx, d); err != nil {
		return err
	}
	if durable != nil {
		durable(nil)
	}
	return nil
}

// Recovered is closed once the inbox has handed out again what its
// earlier owner left unsettled, and Next was called after the last of it
// (see driver.Recoverer); on an inbox that cannot tell, it is closed.
func (i *Inbox) Recovered() <-chan struct{} {
	if r, ok := i.in.(driver.Recoverer); ok {
		return r.Recovered()
	}
	return closed
}

// closed is a channel that is closed.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Quarantine sets a delivery aside with a reason; it will not be
// delivered again.
func (i *Inbox) Quarantine(ctx context.Context, d *Delivery, reason string) error {
	return i.in.Quarantine(ctx, d, reason)
}

// SweepTask moves the handled messages of task taskID to the task's
// archive and returns how many it moved (see driver.TaskSweeper). An
// inbox that keeps no archive fails with ErrNotSupported.
func (i *Inbox) SweepTask(ctx context.Context, taskID string) (int, error) {
	sw, ok := i.in.(driver.TaskSweeper)
	if !ok {
		return 0, notSupported(CanSweep)
	}
	return sw.SweepTask(ctx, taskID)
}

// Prune applies r to the agent's handled and archived messages (see
// driver.Pruner). An inbox that cannot fails with ErrNotSupported.
func (i *Inbox) Prune(ctx context.Context, r Retention) (PruneReport, error) {
	p, ok := i.in.(driver.Pruner)
	if !ok {
		return PruneReport{}, notSupported(CanPrune)
	}
	return p.Prune(ctx, r)
}

// Settle marks agent's message ref (its Ref in Browse: pending, or left
// claimed by an owner that is gone) as handled without handing it to
// anyone: what an operator does to a request answered from elsewhere
// while its agent does not run. It opens the agent's inbox, so it fails
// with ErrInboxBusy while the agent runs (its process settles what it
// holds), and with ErrNotSupported on a backend that cannot hand out a
// message out of turn (driver.Picker).
func (s *Store) Settle(ctx context.Context, agent, ref string) (err error) {
	in, err := s.OpenInbox(ctx, agent)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := in.Close(); err == nil {
			err = cerr
		}
	}()
	p, ok := in.in.(driver.Picker)
	if !ok {
		return notSupported(CanPick)
	}
	d, err := p.Pick(ctx, ref)
	if err != nil {
		return err
	}
	return in.Ack(ctx, d)
}

// Close releases the inbox; claimed but unacknowledged deliveries come
// back when it is next opened.
func (i *Inbox) Close() error { return i.in.Close() }
