package natsstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Inbox is one agent's inbox: its durable consumer, owned from
// Store.OpenInbox until Close. Next may be called from one goroutine at a
// time (calls queue); Ack and Quarantine from any goroutine.
type Inbox struct {
	s      *Store
	agent  string
	cc     jetstream.ConsumeContext
	lock   *inboxLock
	ctx    context.Context // ends with Close
	cancel context.CancelFunc
	sem    chan struct{} // held by the running Next, and by Close for good
	wg     sync.WaitGroup
	once   sync.Once

	qmu     sync.Mutex
	queue   []*pulled     // pulled and checked, not yet handed out
	arrived chan struct{} // poked when queue grows; buffered 1

	mu       sync.Mutex // guards the fields below
	closed   bool
	claims   map[uint64]*claim // handed out and not settled, by stream sequence
	inflight map[string]int    // own ids of the claims
	handled  *idRing           // own ids settled lately
	// seenBelow: messages up to this stream sequence were delivered
	// before the inbox opened; attempts counts their hand-outs.
	seenBelow uint64
	attempts  attempts
}

var _ store.Inbox = (*Inbox)(nil)

// OpenInbox implements store.Backend. It takes the agent's lock (failing
// with store.ErrInboxBusy while another process or Inbox holds it),
// creates or updates the agent's durable consumer and starts pulling.
// Messages a crashed owner left unacknowledged come back after AckWait;
// those a closed Inbox released come back at once, first.
func (s *Store) OpenInbox(ctx context.Context, agentID string) (store.Inbox, error) {
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	if err := envelope.ValidateAgentID(agentID); err != nil {
		return nil, fmt.Errorf("open inbox: %w", err)
	}
	lock, err := s.lockInbox(ctx, agentID)
	if err != nil {
		return nil, err
	}
	in, err := s.startInbox(ctx, agentID, lock)
	if err != nil {
		lock.release(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("open inbox of %q: %w", agentID, err)
	}
	if err := s.inboxes.Add(in); err != nil {
		return nil, err
	}
	return in, nil
}

// startInbox creates or updates the agent's consumer and starts pulling.
// If the consumer has messages delivered and not acknowledged (left by a
// closed or crashed owner) it is reset to its acknowledgement floor, so
// they come again at once and in stream order, before anything newer.
func (s *Store) startInbox(ctx context.Context, agent string, lock *inboxLock) (*Inbox, error) {
	name := consumerName(agent)
	cons, err := s.js.CreateOrUpdateConsumer(ctx, s.opts.Stream, jetstream.ConsumerConfig{
		Durable:       name,
		Description:   "switchboard inbox of " + agent,
		FilterSubject: s.names.inboxFilter(agent),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       s.opts.AckWait,
		MaxDeliver:    -1, // the inbox counts hand-outs itself (see attempts)
		DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("consumer %s: %w", name, err)
	}
	info := cons.CachedInfo()
	in := &Inbox{s: s, agent: agent, lock: lock, sem: make(chan struct{}, 1), arrived: make(chan struct{}, 1),
		claims: map[uint64]*claim{}, inflight: map[string]int{}, handled: newIDRing(handledKeep)}
	if info.NumAckPending > 0 {
		in.seenBelow = info.Delivered.Stream
		if in.attempts, err = s.loadAttempts(ctx, agent); err != nil {
			return nil, err
		}
		if _, err := s.js.ResetConsumer(ctx, s.opts.Stream, name); err != nil {
			return nil, fmt.Errorf("reset consumer %s to redeliver what was left unacknowledged: %w", name, err)
		}
	}
	if in.attempts == nil {
		in.attempts = attempts{}
	}
	// Consume hands messages to a callback, which queues them here; unlike
	// the Messages iterator, whose fixed channel drops messages when a
	// reconnect makes the client pull again while it holds a full batch.
	in.cc, err = cons.Consume(in.receive, jetstream.PullMaxMessages(s.opts.Prefetch),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			s.opts.Logger.Debug("inbox consumer", "agent", agent, "err", err)
		}))
	if err != nil {
		return nil, fmt.Errorf("consume: %w", err)
	}
	in.ctx, in.cancel = context.WithCancel(context.Background())
	in.wg.Go(in.keepAlive)
	return in, nil
}

// receive checks a pulled message and queues it for Next. It runs on the
// consumer's goroutine as messages arrive, so decoding overlaps with the
// caller's work on the previous message instead of adding to its wait for
// the next one.
func (in *Inbox) receive(m jetstream.Msg) {
	p := in.inspect(m)
	in.qmu.Lock()
	in.queue = append(in.queue, p)
	in.qmu.Unlock()
	select {
	case in.arrived <- struct{}{}:
	default:
	}
}

// pop takes the oldest queued message, if any.
func (in *Inbox) pop() *pulled {
	in.qmu.Lock()
	defer in.qmu.Unlock()
	if len(in.queue) == 0 {
		return nil
	}
	m := in.queue[0]
	in.queue[0] = nil
	in.queue = in.queue[1:]
	return m
}

// Agent returns the agent whose inbox this is.
func (in *Inbox) Agent() string { return in.agent }

// keepAlive renews the lock and tells the server that handed-out messages
// are still being worked on, so a long task is not redelivered while it
// runs.
func (in *Inbox) keepAlive() {
	progress := time.NewTicker(in.s.opts.AckWait / 3)
	defer progress.Stop()
	renew := time.NewTicker(in.s.opts.LockTTL / 3)
	defer renew.Stop()
	for {
		select {
		case <-in.ctx.Done():
			return
		case <-progress.C:
			in.mu.Lock()
			for _, c := range in.claims {
				if err := c.msg.InProgress(); err != nil {
					in.s.opts.Logger.Warn("cannot extend a handed-out message", "agent", in.agent, "id", c.id, "err", err)
				}
			}
			in.mu.Unlock()
		case <-renew.C:
			if err := in.lock.renew(in.ctx); err != nil && in.ctx.Err() == nil {
				in.s.opts.Logger.Error("inbox lock lost; another process may take this inbox", "agent", in.agent, "err", err)
			}
		}
	}
}

// Close implements store.Inbox: it stops Next (which returns
// store.ErrClosed) and the pulling, waits until the server has every
// acknowledgement sent, and releases the lock. Messages handed out or
// pulled ahead and not settled are redelivered, first and in order, when
// the inbox is opened next (marked Redelivered).
func (in *Inbox) Close() error {
	var err error
	in.once.Do(func() {
		in.cancel()
		in.sem <- struct{}{} // no Next runs from now on
		in.wg.Wait()
		in.cc.Stop()
		in.qmu.Lock()
		in.queue = nil
		in.qmu.Unlock()
		in.mu.Lock()
		in.closed = true
		in.claims = map[uint64]*claim{}
		in.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		var errs []error
		if !in.s.nc.IsClosed() {
			errs = append(errs, in.s.nc.FlushWithContext(ctx), in.lock.release(ctx))
		}
		in.s.inboxes.Remove(in)
		err = errors.Join(errs...)
	})
	return err
}
