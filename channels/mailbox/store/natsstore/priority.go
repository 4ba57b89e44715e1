package natsstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/backoff"
)

// lane is one of the two durable consumers of an inbox: ordinary messages
// (priority 0) on mailbox.<agent>.inbox.*, and messages of priority 1 to 3
// on mailbox.<agent>.priority.*, which Next takes first. Each keeps stream
// order; the inbox orders what the priority lane pulled by priority.
type lane int

const (
	laneNormal   lane = iota // consumer inbox-<agent>
	lanePriority             // consumer prio-<agent>
	laneCount                // how many there are
)

func (l lane) String() string {
	if l == lanePriority {
		return "priority"
	}
	return "inbox"
}

// consumerConfig is the configuration of agent's consumer of lane l. Each
// filters exactly its own subjects (a stored message belongs to the
// consumer whose filter matches its subject).
func (s *Store) consumerConfig(agent string, l lane) jetstream.ConsumerConfig {
	cfg := jetstream.ConsumerConfig{
		Durable:       consumerName(agent),
		Description:   "switchboard inbox of " + agent,
		FilterSubject: s.names.inboxFilter(agent),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       s.opts.AckWait,
		MaxDeliver:    -1, // the inbox counts hand-outs itself (see handouts)
		DeliverPolicy: jetstream.DeliverAllPolicy,
	}
	if l == lanePriority {
		cfg.Durable = priorityConsumerName(agent)
		cfg.Description = "switchboard priority messages of " + agent
		cfg.FilterSubject = s.names.priorityFilter(agent)
	}
	return cfg
}

// consumerStart is what startConsumer found.
type consumerStart struct {
	cons jetstream.Consumer
	// seenBelow: see Inbox.seenBelow; 0 when nothing is redelivered.
	seenBelow uint64
	// pending is how many messages the consumer has to deliver now, and
	// maxAckPending its limit of messages delivered and not acknowledged.
	pending       uint64
	maxAckPending int
	// owed is how many messages an earlier owner left unacknowledged:
	// they come again first.
	owed int
}

// startConsumer creates or updates agent's consumer of lane l. If it has
// messages delivered and not acknowledged (left by a closed or crashed
// owner) it is reset to its acknowledgement floor, so they come again at
// once and in stream order, before anything newer.
//
// The record of hand-outs (rec) learns first how far the server delivered,
// so that messages delivered before come back marked Redelivered even if
// this process is killed between the reset and their redelivery.
func (s *Store) startConsumer(ctx context.Context, agent string, l lane, rec *handouts) (consumerStart, error) {
	cfg := s.consumerConfig(agent, l)
	cons, err := s.createConsumer(ctx, cfg)
	if err != nil {
		return consumerStart{}, fmt.Errorf("consumer %s: %w", cfg.Durable, err)
	}
	info := cons.CachedInfo()
	st := consumerStart{cons: cons, pending: info.NumPending, maxAckPending: info.Config.MaxAckPending}
	if info.NumAckPending == 0 {
		return st, nil
	}
	if err := rec.raise(ctx, l, info.Delivered.Stream); err != nil {
		return consumerStart{}, fmt.Errorf("record how far %s delivered: %w", cfg.Durable, err)
	}
	st.seenBelow, st.owed = info.Delivered.Stream, info.NumAckPending
	reset, err := s.js.ResetConsumer(ctx, s.opts.Stream, cfg.Durable)
	if err != nil {
		return consumerStart{}, fmt.Errorf("reset consumer %s to redeliver what was left unacknowledged: %w", cfg.Durable, err)
	}
	st.pending += uint64(info.NumAckPending)
	if reset != nil && reset.ConsumerInfo != nil {
		st.pending = reset.NumPending
	}
	return st, nil
}

// consumerAttempts is how many times createConsumer asks.
const consumerAttempts = 6

// consumerRetry spaces createConsumer's attempts.
var consumerRetry = backoff.Policy{Initial: time.Second, Max: 8 * time.Second}

// createConsumer creates or updates the consumer of cfg on the main
// stream, asking again (up to consumerAttempts, after a jittered wait)
// when the server did not answer in time: on a cluster every consumer is
// a replicated group of its own, and a thousand agents that open their
// inboxes at once queue a few thousand of them. Asking again is safe: the
// request creates the consumer or finds it as asked.
func (s *Store) createConsumer(ctx context.Context, cfg jetstream.ConsumerConfig) (jetstream.Consumer, error) {
	waits := consumerRetry.Start()
	for attempt := 1; ; attempt++ {
		cons, err := s.js.CreateOrUpdateConsumer(ctx, s.opts.Stream, cfg)
		if err == nil || !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil || attempt == consumerAttempts {
			return cons, err
		}
		s.opts.Logger.Warn("the NATS server did not answer in time; asking again", "consumer", cfg.Durable, "attempt", attempt)
		if err := backoff.Sleep(ctx, clock.Real, waits.Next()); err != nil {
			return nil, err
		}
	}
}

// receiveUrgent checks a message of the priority lane and queues it in
// urgentOrder.
func (in *Inbox) receiveUrgent(m jetstream.Msg) {
	p := in.inspect(m, lanePriority)
	p.priority = urgency(p)
	in.qmu.Lock()
	i, _ := slices.BinarySearchFunc(in.urgent, p, urgentOrder)
	in.urgent = slices.Insert(in.urgent, i, p)
	if p.md != nil {
		in.urgentDue = p.md.NumPending
	}
	in.qmu.Unlock()
	select {
	case in.arrived <- struct{}{}:
	default:
	}
}

// urgentOrder is the order of queued priority messages: highest priority
// first, then stream order.
func urgentOrder(a, b *pulled) int {
	return cmp.Or(cmp.Compare(b.priority, a.priority), cmp.Compare(a.seq(), b.seq()))
}

// urgency is the priority of a message of the priority lane: its
// HeaderPriority, else its own priority field, else 1 (it came on a
// priority subject).
func urgency(p *pulled) int {
	if h := p.m.Headers(); h != nil {
		if n, err := strconv.Atoi(h.Get(HeaderPriority)); err == nil && n >= 1 && n <= 3 {
			return n
		}
	}
	if p.msg != nil && p.msg.Priority >= 1 && p.msg.Priority <= 3 {
		return p.msg.Priority
	}
	return 1
}

// addSubjects adds the subjects the stream lacks to it: a stream made
// before priority messages existed lacks mailbox.*.priority.*.
func (s *Store) addSubjects(ctx context.Context) error {
	cfg := s.stream.CachedInfo().Config
	var missing []string
	for _, want := range s.names.streamSubjects() {
		if !slices.ContainsFunc(cfg.Subjects, func(have string) bool { return subjectWithin(want, have) }) {
			missing = append(missing, want)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	cfg.Subjects = append(cfg.Subjects, missing...)
	stream, err := s.js.UpdateStream(ctx, cfg)
	if err != nil {
		return fmt.Errorf("natsstore: stream %s lacks the subjects %s and adding them failed "+
			"(an administrator can add them, e.g. nats stream edit %s --subjects %s): %w",
			cfg.Name, strings.Join(missing, ", "), cfg.Name, strings.Join(cfg.Subjects, ","), err)
	}
	s.stream = stream
	return nil
}

// subjectWithin reports whether every subject that subject (which may hold
// wildcards) matches is matched by filter too.
func subjectWithin(subject, filter string) bool {
	st, ft := strings.Split(subject, "."), strings.Split(filter, ".")
	for i, f := range ft {
		switch {
		case f == ">":
			return len(st) > i
		case i >= len(st) || st[i] == ">":
			return false
		case f != "*" && f != st[i]:
			return false
		}
	}
	return len(st) == len(ft)
}
