package natsstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/recentids"
)

// Inbox is one agent's inbox: its durable consumers (see lane; the priority
// lane's is made when needed, see priority_lazy.go), owned
// from Store.OpenInbox until Close. Next may be called from one goroutine
// at a time (calls queue); Ack and Quarantine from any goroutine.
type Inbox struct {
	s      *Store
	agent  string
	ccs    [laneCount]jetstream.ConsumeContext
	lock   *inboxLock
	ctx    context.Context // ends with Close
	cancel context.CancelFunc
	sem    chan struct{} // held by the running Next, and by Close for good
	wg     sync.WaitGroup
	once   sync.Once

	qmu     sync.Mutex
	queue   []*pulled     // pulled and checked, not yet handed out
	urgent  []*pulled     // the same of the priority lane, in urgentOrder
	arrived chan struct{} // poked when queue or urgent grows; buffered 1
	// urgentDue is how many priority messages the server had for the
	// priority consumer beyond those it sent (NumPending of the last one,
	// or of the consumer at opening): Next holds back ordinary messages
	// while it waits for them (see pop).
	urgentDue uint64
	// urgentHeld counts priority messages handed out and not settled;
	// maxAckPending is the priority consumer's limit of those plus the
	// queued ones.
	urgentHeld    atomic.Int64
	maxAckPending int

	mu       sync.Mutex // guards the fields below
	closed   bool
	claims   map[uint64]*claim // handed out and not settled, by stream sequence
	inflight map[string]int    // own ids of the claims
	handled  *recentids.Set    // own ids settled lately
	// seenBelow: a lane's messages up to this stream sequence were
	// delivered before the inbox opened (rec's below as it opened).
	seenBelow [laneCount]uint64
	// rec counts the hand-outs (by stream sequence, unique across lanes).
	rec *handouts
	// owed is how many messages an earlier owner left unacknowledged
	// that have not come back yet; recovered is closed by the Next after
	// the last of them (Recovered).
	owed          int
	recovered     chan struct{}
	recoveredDone bool
}

var _ driver.Inbox = (*Inbox)(nil)

// OpenInbox implements driver.Backend. It takes the agent's lock (failing
// with driver.ErrInboxBusy while another process or Inbox holds it),
// creates or updates the agent's durable consumer (and its priority
// consumer, when priority messages wait or cannot be watched for: see
// priority_lazy.go) and starts pulling.
// Messages a crashed owner left unacknowledged come back after AckWait;
// those a closed Inbox released come back at once, first.
func (s *Store) OpenInbox(ctx context.Context, agentID string) (driver.Inbox, error) {
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
	stop := lock.holdWhile(s.opts.Logger, agentID)
	in, err := s.startInbox(ctx, agentID, lock)
	stop()
	if err != nil {
		lock.release(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("open inbox of %q: %w", agentID, err)
	}
	// The inbox renews the lock from here on; not before holdWhile has
	// stopped, so that one renews it at a time.
	in.wg.Go(in.keepAlive)
	if err := s.inboxes.Add(in); err != nil {
		return nil, err
	}
	return in, nil
}

// startInbox creates or updates the agent's consumers and starts pulling.
// If a consumer has messages delivered and not acknowledged (left by a
// closed or crashed owner) it is reset to its acknowledgement floor, so
// they come again at once and in stream order, before anything newer.
func (s *Store) startInbox(ctx context.Context, agent string, lock *inboxLock) (*Inbox, error) {
	in := &Inbox{s: s, agent: agent, lock: lock, sem: make(chan struct{}, 1), arrived: make(chan struct{}, 1),
		claims: map[uint64]*claim{}, inflight: map[string]int{}, handled: recentids.New(handledKeep), recovered: make(chan struct{})}
	var err error
	if in.rec, err = s.loadHandouts(ctx, agent); err != nil {
		return nil, err
	}
	in.rec.dropGone(ctx)
	// The priority lane's consumer is made now only when priority
	// messages wait (or the server did not say in time), or the inbox
	// cannot watch for them (see priority_lazy.go).
	watch, err := s.watchPriority(ctx, agent, in.expectUrgent)
	if err != nil {
		return nil, err
	}
	lanes := laneCount
	if watch != nil {
		stored, err := s.priorityStored(ctx, agent)
		if err != nil && ctx.Err() != nil {
			watch.stop(s.nc)
			return nil, err
		}
		if err != nil || stored { // unknown (a busy server): made at once, as before
			watch.stop(s.nc)
			watch = nil
		} else {
			lanes = lanePriority // the ordinary lane only
		}
	}
	var conss [laneCount]jetstream.Consumer
	for l := range lanes {
		// One after the other, as every request of an agent that starts:
		// a server that a thousand agents ask at once answers each request
		// after those queued before it, and a request that waits longer
		// than its timeout is asked again, which adds to the queue.
		st, err := s.startConsumer(ctx, agent, l, in.rec)
		if err != nil {
			if watch != nil {
				watch.stop(s.nc)
			}
			return nil, err
		}
		conss[l] = st.cons
		in.owed += st.owed
		if l == lanePriority {
			in.qmu.Lock() // a watch stopped meanwhile may have seen a message
			in.urgentDue, in.maxAckPending = max(in.urgentDue, st.pending), st.maxAckPending
			in.qmu.Unlock()
		}
	}
	in.seenBelow = in.rec.below
	for l := range lanes {
		cc, err := in.consume(conss[l], l)
		if err != nil {
			in.stopConsuming()
			if watch != nil {
				watch.stop(s.nc)
			}
			return nil, err
		}
		in.ccs[l] = cc
	}
	in.ctx, in.cancel = context.WithCancel(context.Background())
	if watch != nil {
		in.wg.Go(func() { in.awaitPriority(watch) })
	}
	in.wg.Go(func() { in.rec.flush(in.ctx) })
	return in, nil
}

// consume starts pulling from cons, lane l's consumer. Consume hands
// messages to a callback, which queues them here; unlike the Messages
// iterator, whose fixed channel drops messages when a reconnect makes the
// client pull again while it holds a full batch.
func (in *Inbox) consume(cons jetstream.Consumer, l lane) (jetstream.ConsumeContext, error) {
	receive := in.receive
	if l == lanePriority {
		receive = in.receiveUrgent
	}
	cc, err := cons.Consume(receive, jetstream.PullMaxMessages(in.s.opts.Prefetch), jetstream.PullExpiry(pullExpiry),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			in.s.opts.Logger.Debug("inbox consumer", "agent", in.agent, "lane", l, "err", err)
		}))
	if err != nil {
		return nil, fmt.Errorf("consume: %w", err)
	}
	return cc, nil
}

// pullExpiry is how long a pull request of an idle inbox waits at the
// server before the client asks again; the server says it is alive every
// 30 s meanwhile (nats.go's longest heartbeat). With nats.go's default of
// 30 s (and a heartbeat every 15 s) each idle consumer (two per agent then),
// woke its agent and the server six times a minute; with this, two and a
// half times.
const pullExpiry = 2 * time.Minute

// stopConsuming stops the pulling of the lanes started.
func (in *Inbox) stopConsuming() {
	for _, cc := range in.ccs {
		if cc != nil {
			cc.Stop()
		}
	}
}

// receive checks a pulled message and queues it for Next. It runs on the
// consumer's goroutine as messages arrive, so decoding overlaps with the
// caller's work on the previous message instead of adding to its wait for
// the next one.
func (in *Inbox) receive(m jetstream.Msg) {
	p := in.inspect(m, laneNormal)
	in.qmu.Lock()
	in.queue = append(in.queue, p)
	in.qmu.Unlock()
	select {
	case in.arrived <- struct{}{}:
	default:
	}
}

// pop takes the next queued message: the first priority message, else the
// oldest ordinary one. While the server has priority messages for the
// inbox that have not arrived yet (urgentDue), it takes only a priority-3
// message (none can come before it) and otherwise returns wait: Next
// waits for them, so that an inbox opened on a backlog takes its priority
// messages first and in order. It stops waiting for them when the
// priority consumer is at its limit of messages out (they cannot come),
// or when Next gives up (giveUp).
func (in *Inbox) pop(giveUp bool) (p *pulled, wait bool) {
	in.qmu.Lock()
	defer in.qmu.Unlock()
	if in.urgentDue > 0 && (giveUp || in.maxAckPending > 0 &&
		in.urgentHeld.Load()+int64(len(in.urgent)) >= int64(in.maxAckPending)) {
		in.urgentDue = 0
	}
	due := in.urgentDue > 0
	switch {
	case len(in.urgent) > 0 && (!due || in.urgent[0].priority == 3):
		p = in.urgent[0]
		in.urgent[0] = nil
		in.urgent = in.urgent[1:]
		return p, false
	case len(in.queue) == 0 && len(in.urgent) == 0:
		return nil, false
	case due:
		return nil, true
	}
	p = in.queue[0]
	in.queue[0] = nil
	in.queue = in.queue[1:]
	return p, false
}

// Agent returns the agent whose inbox this is.
func (in *Inbox) Agent() string { return in.agent }

// keepAlive renews the lock and tells the server that handed-out messages
// are still being worked on, so a long task is not redelivered while it
// runs, and that those pulled ahead are still wanted: the pulling goes on
// while the queue waits (up to the consumers' MaxAckPending), and a queued
// message redelivered by the server would be queued again and, without an
// id of NewID's form, handed out twice.
func (in *Inbox) keepAlive() {
	progress := time.NewTicker(in.s.opts.AckWait / 3)
	defer progress.Stop()
	renew := in.lock.renewer()
	defer renew.stop()
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
			in.extendQueued()
		case <-renew.C():
			if err := renew.renew(in.ctx); err != nil && in.ctx.Err() == nil {
				in.s.opts.Logger.Error("inbox lock not renewed; another process may take this inbox once it expires", "agent", in.agent, "err", err)
			}
		}
	}
}

// extendQueued resets the server's AckWait of the messages pulled and not
// handed out yet.
func (in *Inbox) extendQueued() {
	in.qmu.Lock()
	queued := make([]*pulled, 0, len(in.queue)+len(in.urgent))
	queued = append(append(queued, in.queue...), in.urgent...)
	in.qmu.Unlock()
	for _, p := range queued {
		if err := p.m.InProgress(); err != nil {
			in.s.opts.Logger.Debug("cannot extend a message pulled ahead", "agent", in.agent, "err", err)
		}
	}
}

// Close implements driver.Inbox: it stops Next (which returns
// driver.ErrClosed) and the pulling, waits until the server has every
// acknowledgement sent, and releases the lock. Messages handed out or
// pulled ahead and not settled are redelivered, first and in order, when
// the inbox is opened next (marked Redelivered); the hand-outs of those
// handed out do not count towards MaxDeliver (see handouts.release): the
// inbox stopped, it did not crash on them.
func (in *Inbox) Close() error { return in.close(true) }

// close is Close; release says whether the hand-outs still open are taken
// off their counts (a clean stop) or left as a crash leaves them (tests).
func (in *Inbox) close(release bool) error {
	var err error
	in.once.Do(func() {
		in.cancel()
		in.sem <- struct{}{} // no Next runs from now on
		in.wg.Wait()
		in.stopConsuming()
		in.qmu.Lock()
		in.queue, in.urgent = nil, nil
		in.qmu.Unlock()
		in.mu.Lock()
		in.closed = true
		held := slices.Collect(maps.Keys(in.claims))
		in.claims = map[uint64]*claim{}
		in.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		var errs []error
		if release && !in.s.nc.IsClosed() {
			if err := in.rec.release(ctx, held); err != nil {
				in.s.opts.Logger.Warn("hand-outs not released; the messages held count as handed out once more",
					"agent", in.agent, "messages", len(held), "err", err)
			}
		}
		if !in.s.nc.IsClosed() {
			errs = append(errs, in.s.nc.FlushWithContext(ctx), in.lock.release(ctx))
		}
		in.s.inboxes.Remove(in)
		err = errors.Join(errs...)
	})
	return err
}
