package natsstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.DeadLetters = (*Store)(nil)

// rawPeek is how much of an undecodable dead letter SetAside returns.
const rawPeek = 4 << 10

// SetAside implements driver.DeadLetters over DeadLetters: Ref is the dead
// letter's sequence in the stream.
func (s *Store) SetAside(ctx context.Context, agent string) ([]driver.SetAside, error) {
	if err := envelope.ValidateAgentID(agent); err != nil {
		return nil, err
	}
	dead, err := s.DeadLetters(ctx, agent, 0)
	if err != nil {
		return nil, err
	}
	out := make([]driver.SetAside, 0, len(dead))
	for _, d := range dead {
		item := driver.SetAside{Agent: agent, Ref: strconv.FormatUint(d.Seq, 10), Reason: d.Reason, Time: d.Time}
		if int64(len(d.Data)) > s.opts.MaxMessageBytes {
			item.Err = fmt.Errorf("larger than %d bytes", s.opts.MaxMessageBytes)
		} else {
			item.Message, item.Err = envelope.DecodeBytes(d.Data)
		}
		if item.Message == nil {
			item.Raw = d.Data[:min(len(d.Data), rawPeek)]
		}
		out = append(out, item)
	}
	return out, nil
}

// Redeliver implements driver.DeadLetters: the copy is published on the
// subject the dead letter first arrived on, so the sender check applies to
// it again, then the dead letter is deleted from the stream.
func (s *Store) Redeliver(ctx context.Context, agent, ref string, copy *envelope.Message) error {
	d, err := s.deadLetter(ctx, agent, ref)
	if err != nil {
		return err
	}
	subject := d.Subject
	if subject == "" {
		subject = s.names.inbox(copy.To, copy.From)
	}
	data, err := driver.EncodeForDelivery(copy, s.opts.MaxMessageBytes, envelope.EncodeCompact)
	if err != nil {
		return fmt.Errorf("redeliver %s: %w", ref, err)
	}
	m := nats.NewMsg(subject)
	m.Data = data
	if p := copy.Priority; p > 0 {
		m.Header.Set(HeaderPriority, strconv.Itoa(p))
	}
	m.Header.Set(jetstream.MsgIDHeader, publishID(copy, data))
	ack, again, err := s.publish(ctx, m)
	if err != nil {
		return fmt.Errorf("redeliver %s to %q: %w", ref, agent, err)
	}
	if (!ack.Duplicate || again) && s.observed() {
		s.emit(driver.Event{Kind: driver.EventSent, Agent: copy.To, MessageID: copy.ID, From: copy.From,
			Ref: "#" + strconv.FormatUint(ack.Sequence, 10), ThreadID: copy.ThreadID, TaskID: copy.TaskOf()})
	}
	return s.deleteDead(ctx, d.Seq)
}

// Discard implements driver.DeadLetters: the dead letter is deleted from
// the stream.
func (s *Store) Discard(ctx context.Context, agent, ref string) error {
	d, err := s.deadLetter(ctx, agent, ref)
	if err != nil {
		return err
	}
	return s.deleteDead(ctx, d.Seq)
}

// deadLetter returns agent's dead letter at sequence ref.
func (s *Store) deadLetter(ctx context.Context, agent, ref string) (DeadLetter, error) {
	if err := envelope.ValidateAgentID(agent); err != nil {
		return DeadLetter{}, err
	}
	if err := s.checkOpen(ctx); err != nil {
		return DeadLetter{}, err
	}
	seq, err := strconv.ParseUint(ref, 10, 64)
	if err != nil || seq == 0 {
		return DeadLetter{}, fmt.Errorf("%w: %q is not a dead letter's sequence", driver.ErrNotSetAside, ref)
	}
	raw, err := s.stream.GetMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) || (err == nil && raw.Subject != s.names.dead(agent)) {
		return DeadLetter{}, fmt.Errorf("%w: %s of %q", driver.ErrNotSetAside, ref, agent)
	}
	if err != nil {
		return DeadLetter{}, fmt.Errorf("dead letter %s of %q: %w", ref, agent, err)
	}
	src, _ := strconv.ParseUint(raw.Header.Get(HeaderSequence), 10, 64)
	return DeadLetter{Seq: raw.Sequence, Reason: raw.Header.Get(HeaderReason),
		Subject: raw.Header.Get(HeaderSubject), SourceSeq: src, Time: raw.Time, Data: raw.Data}, nil
}

// deleteDead removes a dead letter from the stream.
func (s *Store) deleteDead(ctx context.Context, seq uint64) error {
	if err := s.stream.DeleteMsg(ctx, seq); err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
		return fmt.Errorf("delete dead letter %d: %w", seq, err)
	}
	return nil
}
