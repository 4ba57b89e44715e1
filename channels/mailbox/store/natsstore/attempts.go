package natsstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// handouts is an inbox's record of what it handed to its agent, kept in
// the state bucket so that it outlives the process: for each message
// handed out and not settled, by stream sequence, how many of its
// hand-outs count towards MaxDeliver; and for each lane the highest
// sequence the server ever delivered to the inbox (below), messages up
// to which may have been handed out before and come back marked
// Redelivered.
//
// What the server counts is no measure of hand-outs: it delivers up to
// Prefetch messages ahead of Next, and a receiver killed with those in
// its queue would count each as delivered although the agent never saw
// it. So the inbox counts itself:
//   - a message's first hand-out is added to the record and written soon
//     after (flush, at most one write in flight, handoutFlushEvery
//     apart), so the usual path of a message costs no write of its own;
//   - a message that comes back (sequence up to below) is counted before
//     it is handed out, and the record written first: one that crashes
//     every receiver is set aside after MaxDeliver hand-outs however
//     often the receiver restarts; one the record does not list (pulled
//     ahead only, or handed out and the receiver killed before the
//     record was written) counts from this hand-out;
//   - a clean Close takes its open hand-outs back off the count (it
//     stopped, it did not crash), and writes the record;
//   - below is written before a consumer is reset, so that a receiver
//     killed between the reset and the redelivery does not lose it.
type handouts struct {
	s     *Store
	agent string

	wmu sync.Mutex // held while the record is written: writes in order

	mu     sync.Mutex
	counts map[uint64]int
	below  [laneCount]uint64
	dirty  chan struct{} // poked when counts change; buffered 1
}

// handoutFlushEvery spaces the writes of the record made for first
// hand-outs and settlements.
const handoutFlushEvery = 50 * time.Millisecond

// attemptsKey is the state-bucket key of agent's record of hand-outs
// (named for its first content, the counts of redeliveries); user keys
// cannot start with '-', so it cannot collide with one.
func attemptsKey(agent string) string { return stateKey(agent, "-attempts") }

// belowKey is the key of lane l's below in the stored record: not a
// number, so a reader of counts only skips it.
func belowKey(l lane) string { return "below-" + l.String() }

// loadHandouts reads agent's record. One that does not decode is
// started afresh, with a warning.
func (s *Store) loadHandouts(ctx context.Context, agent string) (*handouts, error) {
	h := &handouts{s: s, agent: agent, counts: map[uint64]int{}, dirty: make(chan struct{}, 1)}
	e, err := s.state.Get(ctx, attemptsKey(agent))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return h, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load delivery attempts: %w", err)
	}
	var raw map[string]uint64
	if err := json.Unmarshal(e.Value(), &raw); err != nil {
		s.opts.Logger.Warn("delivery attempts record unreadable; counting from scratch", "agent", agent, "err", err)
		return h, nil
	}
	for k, v := range raw {
		if seq, err := strconv.ParseUint(k, 10, 64); err == nil && v > 0 {
			h.counts[seq] = int(min(v, 1<<20))
		}
	}
	for l := range laneCount {
		h.below[l] = raw[belowKey(l)]
	}
	return h, nil
}

// dropGone forgets the counts of messages no longer in the stream (below
// its first sequence: acknowledged or set aside), which an acknowledgement
// after a crash left in the stored record, and a below beyond the stream's
// last sequence (the stream was made again, its sequences start afresh);
// the record is written without them at its next write. A failure to ask
// keeps them.
func (h *handouts) dropGone(ctx context.Context) {
	h.mu.Lock()
	empty := len(h.counts) == 0 && h.below == [laneCount]uint64{}
	h.mu.Unlock()
	if empty {
		return
	}
	info, err := h.s.stream.Info(ctx)
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for seq := range h.counts {
		if seq < info.State.FirstSeq || seq > info.State.LastSeq {
			delete(h.counts, seq)
		}
	}
	for l := range laneCount {
		if h.below[l] > info.State.LastSeq {
			h.below[l] = 0
		}
	}
}

// raise makes lane l's below at least seq and writes the record when it
// grew; it is called before the consumer is reset.
func (h *handouts) raise(ctx context.Context, l lane, seq uint64) error {
	h.mu.Lock()
	grew := seq > h.below[l]
	h.below[l] = max(h.below[l], seq)
	h.mu.Unlock()
	if !grew {
		return nil
	}
	return h.write(ctx)
}

// write stores the record as it is now.
func (h *handouts) write(ctx context.Context) error {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	h.mu.Lock()
	raw := make(map[string]uint64, len(h.counts)+int(laneCount))
	for seq, n := range h.counts {
		raw[strconv.FormatUint(seq, 10)] = uint64(n)
	}
	for l := range laneCount {
		if h.below[l] > 0 {
			raw[belowKey(l)] = h.below[l]
		}
	}
	h.mu.Unlock()
	data, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, requestTimeout)
		defer cancel()
	}
	_, err = h.s.state.Put(ctx, attemptsKey(h.agent), data)
	return err
}

// poke says that the record changed and is to be written.
func (h *handouts) poke() {
	select {
	case h.dirty <- struct{}{}:
	default:
	}
}

// handedOut records the first hand-out of the message at seq; the record
// is written soon after.
func (h *handouts) handedOut(seq uint64) {
	h.mu.Lock()
	h.counts[seq] = 1
	h.mu.Unlock()
	h.poke()
}

// settled forgets the message at seq (acknowledged or set aside).
func (h *handouts) settled(seq uint64) {
	h.mu.Lock()
	_, had := h.counts[seq]
	delete(h.counts, seq)
	h.mu.Unlock()
	if had {
		h.poke()
	}
}

// comeBack counts one more hand-out of the message at seq, which came
// back (its sequence is up to its lane's below), writes the record before
// it is handed out, and returns why it must be set aside instead, if it
// must.
func (h *handouts) comeBack(ctx context.Context, seq uint64) string {
	h.mu.Lock()
	n := h.counts[seq] + 1
	if n > h.s.opts.MaxDeliver {
		delete(h.counts, seq)
	} else {
		h.counts[seq] = n
	}
	h.mu.Unlock()
	if err := h.write(ctx); err != nil {
		h.s.opts.Logger.Warn("delivery attempt not recorded", "agent", h.agent, "err", err)
	}
	if n > h.s.opts.MaxDeliver {
		return driver.MaxDeliverReason(n-1, h.s.opts.MaxDeliver)
	}
	return ""
}

// release takes the hand-outs of the messages at seqs, still held when
// the inbox closed cleanly, off their counts and writes the record: they
// come back at the next opening, and this hand-out of theirs does not
// count.
func (h *handouts) release(ctx context.Context, seqs []uint64) error {
	h.mu.Lock()
	for _, seq := range seqs {
		if h.counts[seq]--; h.counts[seq] <= 0 {
			delete(h.counts, seq)
		}
	}
	h.mu.Unlock()
	return h.write(ctx)
}

// counted returns a copy of the counts (tests).
func (h *handouts) counted() map[uint64]int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return maps.Clone(h.counts)
}

// flush writes the record whenever it changed, at most one write at a
// time and handoutFlushEvery apart, until ctx ends.
func (h *handouts) flush(ctx context.Context) {
	done := ctx.Done()
	for {
		select {
		case <-done:
			return
		case <-h.dirty:
		}
		if err := h.write(ctx); err != nil && ctx.Err() == nil {
			h.s.opts.Logger.Debug("record of hand-outs not written; written with the next change", "agent", h.agent, "err", err)
		}
		t := time.NewTimer(handoutFlushEvery)
		select {
		case <-done:
			t.Stop()
			return
		case <-t.C:
		}
	}
}
