package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// This file is one forwarder: the owner of one agent's inbox in the store
// the agent's card was copied into, which moves each message arriving
// there to the store where the agent lives. Per message:
//
//  1. a message that crossed this bridge already, or MaxBridges bridges,
//     is set aside (a loop);
//  2. a message the inbox may have handed out before (Redelivered) and
//     that the destination holds already is acknowledged, not sent again;
//  3. the artifacts its file parts name are copied to the destination;
//  4. it is delivered to the destination, this bridge added to its
//     bridges, retried while the destination cannot be reached;
//  5. and only then acknowledged in the source.

// maxRefusals is how often a destination that answers (Ping) may refuse a
// message before it is set aside.
const maxRefusals = 5

// forwarder forwards one route's messages (see the top of the file).
type forwarder struct {
	b      *Bridge
	r      route
	cancel context.CancelFunc
	// held are the messages the destination holds for the agent (by
	// msgKey), read at the first redelivered message after the inbox was
	// opened and grown with each forwarded one; nil until then.
	held map[string]bool
}

// run opens the inbox and forwards its messages until ctx ends, opening
// it again after a failure, and waiting while another process (another
// bridge) holds it.
func (f *forwarder) run(ctx context.Context) {
	from, to := f.b.side(f.r.from), f.b.side(f.r.to)
	log := f.b.log.With("agent", f.r.agent, "from", from.Name, "to", to.Name)
	busy := false
	for ctx.Err() == nil {
		octx, cancel := context.WithTimeout(ctx, f.b.cfg.Timeout) // bounds the opening, not the inbox
		in, err := from.Store.OpenInbox(octx, f.r.agent)
		cancel()
		if err != nil {
			switch {
			case errors.Is(err, store.ErrInboxBusy):
				if !busy {
					log.Info("inbox held by another process (another bridge?); waiting for it")
				}
				busy = true
			case ctx.Err() == nil:
				log.Warn("inbox not opened; trying again", "err", err)
			}
			if !wait(ctx, f.b.cfg.Interval) {
				return
			}
			continue
		}
		busy = false
		log.Info("forwarding the agent's messages")
		err = f.drain(ctx, in, log)
		in.Close()
		if ctx.Err() != nil {
			return
		}
		log.Warn("inbox failed; opening it again", "err", err)
		if !wait(ctx, f.b.cfg.Interval) {
			return
		}
	}
}

// drain forwards the messages of in until an error.
func (f *forwarder) drain(ctx context.Context, in *store.Inbox, log *slog.Logger) error {
	f.held = nil
	for {
		d, err := in.Next(ctx)
		if err != nil {
			return err
		}
		if err := f.forward(ctx, in, d, log); err != nil {
			return err
		}
	}
}

// forward forwards one message (see the top of the file). An error is the
// source inbox's: the message stays claimed there and comes back.
func (f *forwarder) forward(ctx context.Context, in *store.Inbox, d *store.Delivery, log *slog.Logger) error {
	m := d.Message
	log = log.With("id", m.ID, "sender", m.From)
	id, to := f.b.cfg.ID, f.b.side(f.r.to)
	switch {
	case slices.Contains(m.Bridges, id):
		return f.setAside(ctx, in, d, log, fmt.Sprintf("bridge %s: the message crossed this bridge before (bridges %v): forwarding it again would loop", id, m.Bridges))
	case len(m.Bridges) >= MaxBridges:
		return f.setAside(ctx, in, d, log, fmt.Sprintf("bridge %s: the message crossed %d bridges (at most %d)", id, len(m.Bridges), MaxBridges))
	}
	if d.Redelivered && f.holds(ctx, m, log) {
		f.b.count(func(c *counts) { c.duplicates++ })
		log.Info("the destination holds the message already; not forwarded again")
		return in.Ack(ctx, d)
	}
	reason, err := f.copyArtifacts(ctx, m, log)
	if err != nil {
		return err
	}
	if reason != "" {
		return f.setAside(ctx, in, d, log, reason)
	}
	fwd := *m
	fwd.Bridges = append(slices.Clone(m.Bridges), id)
	for refused := 0; ; {
		err := to.Store.Deliver(ctx, &fwd)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if permanent(err) {
			return f.setAside(ctx, in, d, log, fmt.Sprintf("bridge %s: the %s store refuses the message: %v", id, to.Name, err))
		}
		if to.Store.Ping(ctx) == nil {
			if refused++; refused >= maxRefusals {
				return f.setAside(ctx, in, d, log, fmt.Sprintf("bridge %s: the %s store refused the message %d times: %v", id, to.Name, refused, err))
			}
		}
		log.Warn("not delivered; trying again", "err", err)
		if !wait(ctx, f.b.cfg.Interval) {
			return ctx.Err()
		}
	}
	if f.held != nil {
		f.held[msgKey(m.ID, m.Timestamp.Time)] = true
	}
	if err := in.Ack(ctx, d); err != nil {
		return err
	}
	f.b.count(func(c *counts) { c.forwarded++ })
	log.Debug("forwarded", "type", m.Type)
	return nil
}

// permanent reports whether a delivery failed for what the message is (too
// large, malformed, an invalid recipient): sending it again fails again.
func permanent(err error) bool {
	return errors.Is(err, envelope.ErrTooLarge) || errors.Is(err, envelope.ErrMalformed) || errors.Is(err, envelope.ErrBadAgentID)
}

// setAside sets d aside in its source with reason.
func (f *forwarder) setAside(ctx context.Context, in *store.Inbox, d *store.Delivery, log *slog.Logger, reason string) error {
	if err := in.Quarantine(ctx, d, reason); err != nil {
		return err
	}
	f.b.count(func(c *counts) { c.setAside++ })
	log.Warn("message set aside", "reason", reason)
	return nil
}

// msgKey names a message for the bridge's deduplication: its id and
// timestamp (nanobot's ids alone are not unique).
func msgKey(id string, ts time.Time) string {
	return id + "\x00" + ts.UTC().Format(time.RFC3339Nano)
}

// holds reports whether the destination holds m already: a bridge
// forwarded it and stopped before acknowledging it. The destination's
// messages for the agent are read once per opening of the inbox. A
// destination that cannot list them (a NATS store without its history)
// is taken to hold nothing: m is delivered again, and the destination's
// own deduplication (the stream's duplicate window, the receiver's) drops
// the copy.
func (f *forwarder) holds(ctx context.Context, m *envelope.Message, log *slog.Logger) bool {
	if f.held == nil {
		held := map[string]bool{}
		ctx, cancel := context.WithTimeout(ctx, f.b.cfg.Timeout)
		defer cancel()
		err := f.b.side(f.r.to).Store.Skim(ctx, []string{f.r.agent}, func(sk store.Skimmed) bool {
			held[msgKey(sk.Summary.ID, sk.Summary.Timestamp)] = true
			return true
		})
		if err != nil {
			log.Warn("the destination's messages cannot be listed: a message the bridge may have forwarded before is forwarded again", "err", err)
			return false
		}
		f.held = held
	}
	return f.held[msgKey(m.ID, m.Timestamp.Time)]
}
