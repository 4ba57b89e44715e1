package natsstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Headers of a dead letter.
const (
	HeaderReason   = "Mailbox-Reason"   // why it was set aside
	HeaderSubject  = "Mailbox-Subject"  // the subject it arrived on
	HeaderSequence = "Mailbox-Sequence" // its sequence in the stream
)

// claimOf returns the claim behind d, which must come from this inbox.
func (in *Inbox) claimOf(d *driver.Delivery) (*claim, error) {
	if d == nil {
		return nil, errors.New("nil delivery")
	}
	c, ok := d.Ref.(*claim)
	if !ok || c.in != in {
		return nil, fmt.Errorf("delivery was not handed out by the inbox of %q", in.agent)
	}
	return c, nil
}

// Ack implements driver.Inbox: the message is acknowledged to the stream,
// which removes it (waiting for the server's confirmation unless
// Options.AsyncAck). Acknowledging twice is harmless.
func (in *Inbox) Ack(ctx context.Context, d *driver.Delivery) error {
	c, err := in.claimOf(d)
	if err != nil {
		return fmt.Errorf("ack: %w", err)
	}
	if done, err := in.settleCheck(c, refAcked); done || err != nil {
		return err
	}
	if err := in.s.ack(ctx, c.msg); err != nil {
		return fmt.Errorf("ack %s: %w", c.id, err)
	}
	in.settled(c, refAcked)
	if !in.s.opts.NoHistory { // nothing to sweep into without it
		in.s.sweeps.noteAcked(in.agent, c.seq, d.Message)
	}
	if in.s.observed() {
		in.s.emit(driver.Event{Kind: driver.EventProcessed, Agent: in.agent, MessageID: c.id,
			From: d.Message.From, Ref: ref(c.seq), ThreadID: d.Message.ThreadID, TaskID: d.Message.TaskOf()})
	}
	return nil
}

// Quarantine implements driver.Inbox: the message moves to the inbox's
// dead-letter subject with the reason (EventRefused) and is not delivered
// again.
func (in *Inbox) Quarantine(ctx context.Context, d *driver.Delivery, reason string) error {
	c, err := in.claimOf(d)
	if err != nil {
		return fmt.Errorf("quarantine: %w", err)
	}
	if done, err := in.settleCheck(c, refQuarantined); done || err != nil {
		return err
	}
	if err := in.setAside(ctx, c.msg, c.seq, d.Message, reason, driver.EventRefused); err != nil {
		return fmt.Errorf("quarantine %s: %w", c.id, err)
	}
	in.settled(c, refQuarantined)
	return nil
}

// settleCheck reports whether c is settled as want already (done), or an
// error if it cannot be settled so.
func (in *Inbox) settleCheck(c *claim, want refState) (done bool, err error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	switch {
	case in.closed:
		return false, driver.ErrClosed
	case c.state == want:
		return true, nil
	case c.state != refClaimed:
		return false, fmt.Errorf("message %s was already settled otherwise (acknowledged or quarantined)", c.id)
	}
	return false, nil
}

// settled records that c was settled.
func (in *Inbox) settled(c *claim, st refState) {
	in.mu.Lock()
	defer in.mu.Unlock()
	c.state = st
	if c.lane == lanePriority {
		in.urgentHeld.Add(-1)
	}
	delete(in.claims, c.seq)
	in.rec.settled(c.seq)
	if c.own {
		in.handled.Add(c.id)
		if in.inflight[c.id]--; in.inflight[c.id] <= 0 {
			delete(in.inflight, c.id)
		}
	}
}

// publishDead stores m's data on agent's dead-letter subject with the
// reason, deduplicated by stream sequence.
func (s *Store) publishDead(ctx context.Context, agent string, m jetstream.Msg, seq uint64, reason string) error {
	if _, ok := ctx.Deadline(); !ok || ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), requestTimeout)
		defer cancel()
	}
	dead := nats.NewMsg(s.names.dead(agent))
	dead.Data = m.Data()
	dead.Header.Set(HeaderReason, reason)
	dead.Header.Set(HeaderSubject, m.Subject())
	dead.Header.Set(HeaderSequence, strconv.FormatUint(seq, 10))
	dead.Header.Set(jetstream.MsgIDHeader, "dead:"+s.opts.Stream+":"+strconv.FormatUint(seq, 10))
	if _, _, err := s.publish(ctx, dead); err != nil {
		return fmt.Errorf("publish to %s: %w", dead.Subject, err)
	}
	return nil
}
