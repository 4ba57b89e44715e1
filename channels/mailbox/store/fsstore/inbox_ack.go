package fsstore

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// claimRef is the Delivery.Ref of this store: the claimed file.
type claimRef struct {
	in    *Inbox
	name  string // in claimed/
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
func (in *Inbox) claimOf(d *store.Delivery) (*claimRef, error) {
	if d == nil {
		return nil, errors.New("nil delivery")
	}
	c, ok := d.Ref.(*claimRef)
	if !ok || c.in != in {
		return nil, fmt.Errorf("delivery was not handed out by the inbox of %q", in.agent)
	}
	return c, nil
}

// Ack implements store.Inbox: it records the message id in the dedup
// journal (own ids only), then moves the file from claimed/ to processed/
// under the same name (nanobot's processed/ format) and syncs the folder
// unless Options.NoSync. Acknowledging twice is harmless. The move is
// quick and never half done, so ctx is not consulted.
func (in *Inbox) Ack(_ context.Context, d *store.Delivery) error {
	c, err := in.claimOf(d)
	if err != nil {
		return fmt.Errorf("ack: %w", err)
	}
	in.mu.Lock()
	if err := in.settleLocked(c, refAcked); err != nil || c.state == refAcked {
		in.mu.Unlock()
		return err
	}
	got, err := moveFree(filepath.Join(in.dir, claimedDir), c.name, filepath.Join(in.dir, processedDir))
	if err != nil {
		in.mu.Unlock()
		return fmt.Errorf("ack %s: move to processed: %w", c.id, err)
	}
	in.markLocked(c, refAcked)
	in.mu.Unlock()
	in.s.emit(messageEvent(store.EventProcessed, in.agent, d.Message, got))
	in.noteAcked(d.Message.TaskOf(), got)
	if !in.s.opts.NoSync {
		if err := syncDir(filepath.Join(in.dir, processedDir)); err != nil {
			return fmt.Errorf("ack %s: sync processed/: %w", c.id, err)
		}
	}
	return nil
}

// Quarantine implements store.Inbox: it moves the claimed file to rejected/
// with a reason file and reports EventRefused. The id is recorded in the
// dedup journal, so a retried send of the same message is not handed out
// again either.
func (in *Inbox) Quarantine(_ context.Context, d *store.Delivery, reason string) error {
	c, err := in.claimOf(d)
	if err != nil {
		return fmt.Errorf("quarantine: %w", err)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if err := in.settleLocked(c, refQuarantined); err != nil || c.state == refQuarantined {
		return err
	}
	if err := in.quarantine(claimedDir, c.name, reason, store.EventRefused, d.Message); err != nil {
		return fmt.Errorf("quarantine %s: %w", c.id, err)
	}
	in.markLocked(c, refQuarantined)
	return nil
}

// settleLocked checks that c can be settled as want and journals its id.
// It returns nil without journaling when c is already settled as want.
func (in *Inbox) settleLocked(c *claimRef, want refState) error {
	switch {
	case in.closed:
		return store.ErrClosed
	case c.state == want:
		return nil
	case c.state != refClaimed:
		return fmt.Errorf("message %s was already settled otherwise (acknowledged or quarantined)", c.id)
	}
	if !c.own {
		return nil
	}
	if err := in.journal.add(c.id); err != nil {
		return fmt.Errorf("settle %s: %w", c.id, err)
	}
	if in.journal.needsCompaction() {
		if err := in.journal.compact(); err != nil {
			in.log.Warn("journal not compacted; it keeps growing until it is", "err", err)
		}
	}
	return nil
}

// markLocked records that c was settled.
func (in *Inbox) markLocked(c *claimRef, st refState) {
	c.state = st
	if c.own {
		if in.inflight[c.id]--; in.inflight[c.id] <= 0 {
			delete(in.inflight, c.id)
		}
	}
}
