package natsstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// DeadLetter is one message an inbox set aside: input that could not be
// used, a message refused by policy, or one handed out MaxDeliver times.
type DeadLetter struct {
	// Seq is its sequence on the dead-letter subject.
	Seq uint64
	// Reason says why it was set aside.
	Reason string
	// Subject and SourceSeq are where it was in the stream before.
	Subject   string
	SourceSeq uint64
	Time      time.Time
	// Data is the message as it arrived.
	Data []byte
}

// DeadLetters returns what agent's inbox set aside, oldest first, at most
// limit (0: all). It reads without consuming anything.
func (s *Store) DeadLetters(ctx context.Context, agent string, limit int) ([]DeadLetter, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	subject := s.names.dead(agent)
	var out []DeadLetter
	for seq := uint64(1); limit == 0 || len(out) < limit; {
		raw, err := s.stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return out, fmt.Errorf("dead letters of %q: %w", agent, err)
		}
		src, _ := strconv.ParseUint(raw.Header.Get(HeaderSequence), 10, 64)
		out = append(out, DeadLetter{Seq: raw.Sequence, Reason: raw.Header.Get(HeaderReason),
			Subject: raw.Header.Get(HeaderSubject), SourceSeq: src, Time: raw.Time, Data: raw.Data})
		seq = raw.Sequence + 1
	}
	return out, nil
}
