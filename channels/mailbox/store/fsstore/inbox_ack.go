package fsstore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// claimRef is the Delivery.Ref of this store: the claimed file.
type claimRef struct {
	mu    sync.Mutex // held while it is settled: one Ack or Quarantine at a time
	in    *Inbox
	name  string // in sub
	sub   string // inboxDir, or claimedDir for a claim recovered from there
	id    string
	own   bool     // id is unique (envelope.IsOwnID)
	state refState // guarded by in.mu
}

type refState int

const (
	refClaimed refState = iota
	refAcked
	refQuarantined
)

// claimOf returns the claim behind d, which must come from this inbox.
func (in *Inbox) claimOf(d *driver.Delivery) (*claimRef, error) {
	if d == nil {
		return nil, errors.New("nil delivery")
	}
	c, ok := d.Ref.(*claimRef)
	if !ok || c.in != in {
		return nil, fmt.Errorf("delivery was not handed out by the inbox of %q", in.agent)
	}
	return c, nil
}

// Ack implements driver.Inbox: it records the message id in the dedup
// journal (own ids only), moves the file from inbox/ to processed/ under
// the same name (nanobot's processed/ format) and, unless Options.NoSync,
// waits until the move and the journal line are durable: the group commit
// that makes them so serves every acknowledgement made meanwhile, with one
// fsync of processed/ and one of the journal. Acknowledging twice is
// harmless. The move is quick and never half done, so ctx is not
// consulted. A journal line that cannot be written (a full disk) does not
// fail the acknowledgement: the id is remembered while the inbox is open,
// with a warning.
func (in *Inbox) Ack(ctx context.Context, d *driver.Delivery) error {
	if in.commit == nil {
		return in.ack(d, nil, true)
	}
	ch := make(chan error, 1)
	if err := in.ack(d, func(err error) { ch <- err }, true); err != nil {
		return err
	}
	return <-ch
}

// AckPipelined implements driver.PipelinedAcker: it acknowledges d as Ack
// does but returns once the message is in processed/, without waiting
// for the group commit that makes the acknowledgement durable; durable
// (may be nil) is called when it is, or with the error that kept it from
// being. Close waits for every pending commit. A receiver that takes the
// next message meanwhile loses nothing: an acknowledgement a machine crash
// undoes only brings the message back (at-least-once), and the dedup
// journal drops it if its line was made durable.
func (in *Inbox) AckPipelined(_ context.Context, d *driver.Delivery, durable func(error)) error {
	return in.ack(d, durable, false)
}

// ack acknowledges d for Ack and AckPipelined; wait says that the caller
// waits for durable, so the group commit does not keep the batch open
// for more.
func (in *Inbox) ack(d *driver.Delivery, durable func(error), wait bool) error {
	c, err := in.claimOf(d)
	if err != nil {
		return fmt.Errorf("ack: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	in.mu.Lock()
	journaled, err := in.settleLocked(c, refAcked)
	if err != nil || c.state == refAcked {
		if err == nil && in.commit != nil {
			// Acknowledged before: durable once the batches now pending are.
			in.commit.submit(wait, nil, durable)
			durable = nil
		}
		in.mu.Unlock()
		if err == nil && durable != nil {
			durable(nil)
		}
		return err
	}
	// The move is made without in.mu, so that Next goes on meanwhile; Close
	// waits for it (moving) before it lets the folders go.
	held := in.held
	in.moving.Add(1)
	in.mu.Unlock()
	defer in.moving.Done()
	got, err := in.toProcessed(held, c.sub, c.name)
	in.mu.Lock()
	if err != nil {
		in.mu.Unlock()
		return fmt.Errorf("ack %s: move to processed: %w", c.id, err)
	}
	in.markLocked(c, refAcked)
	ev := messageEvent(driver.EventProcessed, in.agent, d.Message, got)
	ev.Time = in.s.opts.Now()
	if in.commit != nil {
		targets := []syncTarget{held.processed}
		if journaled {
			targets = append(targets, in.journal)
		}
		// Submitted before moving is done, so that Close, which
		// flushes after the moves end, sees every acknowledgement.
		in.commit.submit(wait, &ev, wrapAckErr(c.id, durable), targets...)
	}
	in.mu.Unlock()
	in.noteAcked(d.Message.TaskOf(), got)
	if in.commit == nil {
		in.s.emit(ev)
		if durable != nil {
			durable(nil)
		}
	}
	return nil
}

// wrapAckErr names the message in a failed commit's error.
func wrapAckErr(id string, durable func(error)) func(error) {
	if durable == nil {
		return nil
	}
	return func(err error) {
		if err != nil {
			err = fmt.Errorf("ack %s: sync: %w", id, err)
		}
		durable(err)
	}
}

// Quarantine implements driver.Inbox: it moves the claimed file to rejected/
// with a reason file and reports EventRefused. The id is recorded in the
// dedup journal (durably unless Options.NoSync), so a retried send of the
// same message is not handed out again either.
func (in *Inbox) Quarantine(_ context.Context, d *driver.Delivery, reason string) error {
	c, err := in.claimOf(d)
	if err != nil {
		return fmt.Errorf("quarantine: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	in.mu.Lock()
	journaled, err := in.settleLocked(c, refQuarantined)
	if err != nil || c.state == refQuarantined {
		in.mu.Unlock()
		return err
	}
	if err := in.quarantine(c.sub, c.name, reason, driver.EventRefused, d.Message); err != nil {
		in.mu.Unlock()
		return fmt.Errorf("quarantine %s: %w", c.id, err)
	}
	in.markLocked(c, refQuarantined)
	var done chan error
	if journaled && in.commit != nil {
		done = make(chan error, 1)
		in.commit.submit(true, nil, func(err error) { done <- err }, in.journal)
	}
	in.mu.Unlock()
	if done != nil {
		if err := <-done; err != nil {
			return fmt.Errorf("quarantine %s: %w", c.id, err)
		}
	}
	return nil
}

// settleLocked checks that c can be settled as want and journals its id;
// journaled reports a journal line to make durable. It returns nil
// without journaling when c is already settled as want. A journal line
// that cannot be written (a full disk) does not keep c from being
// settled: the id is remembered in memory only, with a warning.
func (in *Inbox) settleLocked(c *claimRef, want refState) (journaled bool, err error) {
	switch {
	case in.closed:
		return false, driver.ErrClosed
	case c.state == want:
		return false, nil
	case c.state != refClaimed:
		return false, fmt.Errorf("message %s was already settled otherwise (acknowledged or quarantined)", c.id)
	}
	if !c.own {
		return false, nil
	}
	if journaled, err = in.journal.add(c.id); err != nil {
		// A full disk, say. The message is settled all the same: left in
		// inbox/ it would surely be handed out again after a restart,
		// while the journal only catches a copy sent again.
		in.journal.remember(c.id)
		in.log.Warn("dedup journal not written; a copy of the message sent again after a restart would be handed out again",
			"id", c.id, "err", err)
		return false, nil
	}
	if in.journal.needsCompaction() {
		if err := in.journal.compact(); err != nil {
			in.log.Warn("journal not compacted; it keeps growing until it is", "err", err)
		}
	}
	return journaled, nil
}

// markLocked records that c was settled.
func (in *Inbox) markLocked(c *claimRef, st refState) {
	c.state = st
	delete(in.handed, c.name)
	if c.own {
		if in.inflight[c.id]--; in.inflight[c.id] <= 0 {
			delete(in.inflight, c.id)
		}
	}
}
