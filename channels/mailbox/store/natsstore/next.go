package natsstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// handledKeep is how many settled message ids an inbox remembers to drop a
// copy that arrives later (a publish retried after the stream's duplicate
// window).
const handledKeep = 65536

// requestTimeout bounds a request to the server made without a deadline.
const requestTimeout = 10 * time.Second

// claim is the Delivery.Ref of this store.
type claim struct {
	in    *Inbox
	msg   jetstream.Msg
	seq   uint64
	id    string
	own   bool
	lane  lane
	state refState // guarded by in.mu
}

type refState int

const (
	refClaimed refState = iota
	refAcked
	refQuarantined
)

// Next implements driver.Inbox. Messages of priority 1 to 3 come first,
// highest priority first, then the others; each kind in stream order, and
// those left unacknowledged when the inbox was last closed again first.
// While the server holds priority messages the inbox has not received yet,
// Next waits for them rather than hand out something they should precede
// (at most AckWait, should they not come). Input that cannot be used (does
// not decode, too large, addressed to another agent, sent on another
// agent's subject, or handed out MaxDeliver times without an
// acknowledgement) is moved to the dead-letter subject with the reason and
// reported as EventQuarantined; a copy of a message already handled is
// acknowledged and dropped (EventDuplicate). Next returns driver.ErrClosed
// once the inbox is closed, or ctx's error.
func (in *Inbox) Next(ctx context.Context) (*driver.Delivery, error) {
	if err := driver.TakeTurn(ctx, in.sem, in.ctx.Done()); err != nil {
		return nil, err
	}
	defer func() { <-in.sem }()
	var giveUp bool
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	in.noteRecovered()
	for {
		if err := driver.StillOpen(ctx, in.ctx.Done()); err != nil {
			return nil, err
		}
		p, wait := in.pop(giveUp)
		if p == nil {
			var expired <-chan time.Time
			if wait {
				if timer == nil {
					timer = time.NewTimer(in.s.opts.AckWait)
				}
				expired = timer.C
			}
			select {
			case <-in.arrived:
			case <-expired:
				giveUp = true
			case <-in.ctx.Done():
				return nil, driver.ErrClosed
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			continue
		}
		if d := in.take(ctx, p); d != nil {
			return d, nil
		}
	}
}

var _ driver.Recoverer = (*Inbox)(nil)

// Recovered implements driver.Recoverer: it is closed by the first Next
// once every message an earlier owner left unacknowledged has come back
// (handed out, set aside or dropped).
func (in *Inbox) Recovered() <-chan struct{} { return in.recovered }

// noteRecovered closes recovered when nothing is owed any more.
func (in *Inbox) noteRecovered() {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.owed <= 0 && !in.recoveredDone {
		close(in.recovered)
		in.recoveredDone = true
	}
}

// pulled is a message as it arrived, with what inspect found.
type pulled struct {
	m        jetstream.Msg
	lane     lane
	priority int                    // in the priority lane: see urgency
	md       *jetstream.MsgMetadata // nil: not a JetStream message
	msg      *envelope.Message      // nil if it did not decode
	reason   string                 // why it cannot be handed out; "" if it can
}

// seq is p's stream sequence (0 if unknown).
func (p *pulled) seq() uint64 {
	if p.md == nil {
		return 0
	}
	return p.md.Sequence.Stream
}

// inspect reads m's metadata and checks m (see check).
func (in *Inbox) inspect(m jetstream.Msg, l lane) *pulled {
	p := &pulled{m: m, lane: l}
	md, err := m.Metadata()
	if err != nil {
		in.s.opts.Logger.Warn("message without JetStream metadata ignored", "agent", in.agent, "err", err)
		return p
	}
	p.md = md
	p.msg, p.reason = in.check(m)
	return p
}

// take turns a pulled message into a delivery, or sets it aside, or drops
// it; nil means "nothing to hand out".
func (in *Inbox) take(ctx context.Context, p *pulled) *driver.Delivery {
	if p.md == nil {
		return nil
	}
	m, md, msg, reason := p.m, p.md, p.msg, p.reason
	seq := md.Sequence.Stream
	in.mu.Lock()
	_, handedOut := in.claims[seq]
	cameBack := seq <= in.seenBelow[p.lane]
	in.mu.Unlock()
	if handedOut { // redelivered while still being worked on: the claim stands
		return nil
	}
	if cameBack {
		in.mu.Lock()
		in.owed--
		in.mu.Unlock()
	}
	if reason == "" && cameBack {
		reason = in.rec.comeBack(ctx, seq)
	}
	if reason != "" {
		in.setAside(ctx, m, seq, msg, reason, driver.EventQuarantined)
		return nil
	}
	own := envelope.IsOwnID(msg.ID)
	in.mu.Lock()
	dup := own && (in.handled.Has(msg.ID) || in.inflight[msg.ID] > 0)
	if !dup {
		if own {
			in.inflight[msg.ID]++
		}
		c := &claim{in: in, msg: m, seq: seq, id: msg.ID, own: own, lane: p.lane}
		in.claims[seq] = c
		in.mu.Unlock()
		if !cameBack {
			in.rec.handedOut(seq)
		}
		if p.lane == lanePriority {
			in.urgentHeld.Add(1)
		}
		if in.s.observed() {
			in.s.emit(driver.Event{Kind: driver.EventClaimed, Agent: in.agent, MessageID: msg.ID, From: msg.From, Ref: ref(seq),
				ThreadID: msg.ThreadID, TaskID: msg.TaskOf()})
		}
		return &driver.Delivery{Message: msg, Redelivered: md.NumDelivered > 1 || cameBack, Ref: c}
	}
	in.mu.Unlock()
	in.rec.settled(seq)
	if err := in.s.ack(ctx, m); err != nil {
		in.s.opts.Logger.Warn("cannot drop a duplicate; it comes back", "agent", in.agent, "id", msg.ID, "err", err)
		return nil
	}
	in.s.emit(driver.Event{Kind: driver.EventDuplicate, Agent: in.agent, MessageID: msg.ID, From: msg.From, Ref: ref(seq),
		ThreadID: msg.ThreadID, TaskID: msg.TaskOf()})
	return nil
}

// check decodes m and returns the message, or the reason it cannot be
// handed out (with the message when it decoded).
func (in *Inbox) check(m jetstream.Msg) (*envelope.Message, string) {
	if n := int64(len(m.Data())); n > in.s.opts.MaxMessageBytes {
		return nil, fmt.Sprintf("%v: %d bytes, over %d", envelope.ErrTooLarge, n, in.s.opts.MaxMessageBytes)
	}
	msg, err := envelope.DecodeBytes(m.Data())
	if err != nil {
		return nil, err.Error()
	}
	traceFromHeaders(m.Headers(), msg)
	if msg.To != in.agent {
		return msg, fmt.Sprintf("addressed to %q, not to %q", msg.To, in.agent)
	}
	if got := in.s.names.senderToken(m.Subject()); got != token(msg.From) {
		return msg, fmt.Sprintf("sender mismatch: published as %q, claims to be from %q", got, msg.From)
	}
	return msg, ""
}

// setAside publishes m's data on the inbox's dead-letter subject with the
// reason, then acknowledges m, and reports an event of kind. If the dead
// letter cannot be stored, m is left unacknowledged and comes back.
func (in *Inbox) setAside(ctx context.Context, m jetstream.Msg, seq uint64, msg *envelope.Message, reason string, kind driver.EventKind) error {
	if err := in.s.publishDead(ctx, in.agent, m, seq, reason); err != nil {
		in.s.opts.Logger.Error("cannot set a message aside; it comes back", "agent", in.agent, "reason", reason, "err", err)
		return err
	}
	if err := in.s.ack(ctx, m); err != nil {
		return fmt.Errorf("acknowledge a message set aside: %w", err)
	}
	ev := driver.Event{Kind: kind, Agent: in.agent, Ref: ref(seq), Reason: reason}
	if msg != nil {
		ev.MessageID, ev.From, ev.ThreadID, ev.TaskID = msg.ID, msg.From, msg.ThreadID, msg.TaskOf()
	}
	in.s.opts.Logger.Warn("mailbox message set aside", "agent", in.agent, "id", ev.MessageID, "reason", reason)
	in.s.emit(ev)
	return nil
}

// ack acknowledges m, waiting for the server unless Options.AsyncAck.
func (s *Store) ack(ctx context.Context, m jetstream.Msg) error {
	if s.opts.AsyncAck {
		return m.Ack()
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, requestTimeout)
		defer cancel()
	}
	err := m.DoubleAck(ctx)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return m.Ack() // the caller gave up waiting; still send it
	}
	return err
}

// ref is the Event.Ref of the message at stream sequence seq.
func ref(seq uint64) string { return "#" + strconv.FormatUint(seq, 10) }
