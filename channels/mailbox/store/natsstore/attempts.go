package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// attempts counts how often messages left unacknowledged by an earlier
// owner of the inbox were handed out, by stream sequence. A message handed
// out once and never acknowledged (the receiver crashed on it) is counted
// from its second hand-out on, before it is handed out, so that a message
// that crashes every receiver is set aside after MaxDeliver hand-outs
// however often the receiver restarts. The first hand-out of a message is
// not written anywhere: counting costs a write only for redeliveries.
type attempts map[uint64]int

// attemptsKey is the state-bucket key of agent's attempts; user keys
// cannot start with '-', so it cannot collide with one.
func attemptsKey(agent string) string { return stateKey(agent, "-attempts") }

func (s *Store) loadAttempts(ctx context.Context, agent string) (attempts, error) {
	e, err := s.state.Get(ctx, attemptsKey(agent))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return attempts{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load delivery attempts: %w", err)
	}
	var raw map[string]int
	if err := json.Unmarshal(e.Value(), &raw); err != nil {
		s.opts.Logger.Warn("delivery attempts record unreadable; counting from scratch", "agent", agent, "err", err)
		return attempts{}, nil
	}
	a := attempts{}
	for k, v := range raw {
		if seq, err := strconv.ParseUint(k, 10, 64); err == nil {
			a[seq] = v
		}
	}
	return a, nil
}

// dropGoneAttempts forgets the counts of messages no longer in the stream
// (below its first sequence: acknowledged or set aside), which an
// acknowledgement after a crash left in the stored record; the record is
// written without them at the next count. A failure to ask keeps them.
func (s *Store) dropGoneAttempts(ctx context.Context, a attempts) {
	info, err := s.stream.Info(ctx)
	if err != nil {
		return
	}
	for seq := range a {
		if seq < info.State.FirstSeq {
			delete(a, seq)
		}
	}
}

func (s *Store) saveAttempts(ctx context.Context, agent string, a attempts) error {
	raw := make(map[string]int, len(a))
	for seq, n := range a {
		raw[strconv.FormatUint(seq, 10)] = n
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	_, err = s.state.Put(ctx, attemptsKey(agent), data)
	return err
}

// countAttempt records one more hand-out of the redelivered message seq
// and returns why it must be set aside instead, if it must.
func (in *Inbox) countAttempt(ctx context.Context, seq uint64) string {
	in.mu.Lock()
	n := max(in.attempts[seq], 1) + 1
	if n > in.s.opts.MaxDeliver {
		delete(in.attempts, seq)
	} else {
		in.attempts[seq] = n
	}
	snapshot := make(attempts, len(in.attempts))
	for k, v := range in.attempts {
		snapshot[k] = v
	}
	in.mu.Unlock()
	if err := in.s.saveAttempts(ctx, in.agent, snapshot); err != nil {
		in.s.opts.Logger.Warn("delivery attempt not recorded", "agent", in.agent, "err", err)
	}
	if n > in.s.opts.MaxDeliver {
		return driver.MaxDeliverReason(n-1, in.s.opts.MaxDeliver)
	}
	return ""
}
