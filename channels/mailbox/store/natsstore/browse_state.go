package natsstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// mainState is what Browse reads of the main stream to place the copies:
// a few requests, whatever the number of messages. A work-queue stream
// admits no consumer that only reads (each consumer must acknowledge, and
// their filters must not overlap), so the state comes from the stream's
// per-subject counts and the agents' consumers; only messages handed out
// and acknowledged out of order need a look-up each (see boxes).
type mainState struct {
	first, last uint64
	lastTime    time.Time
	republishes bool              // the stream copies its messages to the history
	counts      map[string]uint64 // messages held, by subject
	consumers   []consumerState
	dead        map[uint64]bool // main-stream sequences set aside
	letters     map[uint64]bool // sequences of the dead letters themselves
}

// consumerState is one inbox consumer: messages above delivered were not
// handed out yet, those up to ackFloor are all settled, and ackPending of
// those in between are not.
type consumerState struct {
	filters             []string
	delivered, ackFloor uint64
	ackPending          int
}

// readMainState reads the main stream's state, its consumers and its dead
// letters.
func (s *Store) readMainState(ctx context.Context) (*mainState, error) {
	info, err := s.stream.Info(ctx, jetstream.WithSubjectFilter(s.names.prefix+".>"))
	if err != nil {
		return nil, fmt.Errorf("state of stream %s: %w", s.opts.Stream, err)
	}
	st := &mainState{first: info.State.FirstSeq, last: info.State.LastSeq, lastTime: info.State.LastTime,
		republishes: info.Config.RePublish != nil, counts: info.State.Subjects,
		dead: map[uint64]bool{}, letters: map[uint64]bool{}}
	list := s.stream.ListConsumers(ctx)
	for ci := range list.Info() {
		c := consumerState{filters: ci.Config.FilterSubjects, delivered: ci.Delivered.Stream,
			ackFloor: ci.AckFloor.Stream, ackPending: ci.NumAckPending}
		if ci.Config.FilterSubject != "" {
			c.filters = append(c.filters, ci.Config.FilterSubject)
		}
		st.consumers = append(st.consumers, c)
	}
	if err := list.Err(); err != nil {
		return nil, fmt.Errorf("consumers of stream %s: %w", s.opts.Stream, err)
	}
	var dead uint64
	for subject, n := range st.counts {
		if tok := s.names.split(subject); len(tok) == 2 && tok[1] == "dead" {
			dead += n
		}
	}
	filter := s.names.prefix + ".*.dead"
	for seq := st.first; dead > 0; dead-- {
		raw, err := s.stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(filter))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("dead letters of stream %s: %w", s.opts.Stream, err)
		}
		if src, err := strconv.ParseUint(raw.Header.Get(HeaderSequence), 10, 64); err == nil {
			st.dead[src] = true
		}
		st.letters[raw.Sequence] = true
		seq = raw.Sequence + 1
	}
	return st, nil
}

// lastCopied is the sequence of the last message the stream republished
// (every one but the dead letters), when its copy may still be on its way
// to the history stream; else 0, and readers do not wait for it.
func (st *mainState) lastCopied(s *Store) uint64 {
	if !st.republishes || time.Since(st.lastTime) > catchUpWait { // server time, so the real clock
		return 0
	}
	seq := st.last
	for seq > 0 && st.letters[seq] {
		seq--
	}
	return seq
}

// consumerFor returns the consumer whose filter matches subject, or -1.
func (st *mainState) consumerFor(subject string) int {
	return slices.IndexFunc(st.consumers, func(c consumerState) bool {
		return slices.ContainsFunc(c.filters, func(f string) bool { return subjectWithin(subject, f) })
	})
}

// boxes returns the Box of each copy ("" for a message set aside). A copy
// whose message is still held is BoxInbox or BoxClaimed, any other is
// BoxProcessed (Browse turns the swept ones into BoxArchive). Whether a
// message is held follows from the counts and the consumers, except for
// messages between a consumer's ack floor and its last hand-out, and for
// those of an agent without a consumer when its subject holds fewer than
// the history has: those are looked up, one request per message held.
func (st *mainState) boxes(ctx context.Context, s *Store, copies []historyCopy) ([]driver.Box, error) {
	boxes := make([]driver.Box, len(copies))
	unsure := map[int][]int{}   // consumer -> copies between its floor and its last hand-out
	loose := map[string][]int{} // subject without a consumer -> its copies
	for i, c := range copies {
		switch ci := st.consumerFor(c.subject); {
		case st.dead[c.seq]:
			continue
		case st.counts[c.subject] == 0 || c.seq < st.first:
			boxes[i] = driver.BoxProcessed
		case ci < 0:
			loose[c.subject] = append(loose[c.subject], i)
		case c.seq > st.consumers[ci].delivered:
			boxes[i] = driver.BoxInbox
		case c.seq <= st.consumers[ci].ackFloor:
			boxes[i] = driver.BoxProcessed
		default:
			unsure[ci] = append(unsure[ci], i)
		}
	}
	for ci, idx := range unsure {
		c := st.consumers[ci]
		held := map[uint64]bool{}
		for _, f := range c.filters {
			if err := s.held(ctx, f, c.ackFloor+1, c.delivered, c.ackPending-len(held), held); err != nil {
				return nil, err
			}
		}
		place(boxes, copies, idx, held, driver.BoxClaimed)
	}
	for subject, idx := range loose {
		if n := st.counts[subject]; n >= uint64(len(idx)) { // no consumer took any
			place(boxes, copies, idx, nil, driver.BoxInbox)
			continue
		}
		held := map[uint64]bool{}
		lo, hi := copies[idx[0]].seq, copies[idx[0]].seq
		for _, i := range idx {
			lo, hi = min(lo, copies[i].seq), max(hi, copies[i].seq)
		}
		if err := s.held(ctx, subject, lo, hi, int(st.counts[subject]), held); err != nil {
			return nil, err
		}
		place(boxes, copies, idx, held, driver.BoxInbox)
	}
	return boxes, nil
}

// place sets the box of the copies idx: box if held is nil or holds the
// copy's sequence, else BoxProcessed.
func place(boxes []driver.Box, copies []historyCopy, idx []int, held map[uint64]bool, box driver.Box) {
	for _, i := range idx {
		if held == nil || held[copies[i].seq] {
			boxes[i] = box
		} else {
			boxes[i] = driver.BoxProcessed
		}
	}
}

// held adds to into the sequences from lo to hi of the messages the main
// stream still holds on subject (which may hold wildcards), stopping after
// limit of them.
func (s *Store) held(ctx context.Context, subject string, lo, hi uint64, limit int, into map[uint64]bool) error {
	for seq, found := lo, 0; seq <= hi && found < limit; found++ {
		raw, err := s.stream.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("look up messages on %s: %w", subject, err)
		}
		if raw.Sequence > hi {
			return nil
		}
		into[raw.Sequence] = true
		seq = raw.Sequence + 1
	}
	return nil
}
