package natsstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The priority lane's consumer is made when the inbox needs it: most
// agents never get a priority message, and a durable consumer is the
// dearest thing an agent asks of the server when it starts (written to
// disk, checked against every other consumer of the stream, and on a
// cluster a replicated group of its own, which beats all the time it
// exists). An inbox opens with a core subscription on its priority
// subjects and a look at the stream: when priority messages wait there,
// or one is published later, or one is found stored after the
// connection came back, the consumer is made and pulled from, as it was
// made at once before; and so it is at once when the look at the stream
// or the subscription gets no answer in time (a busy server). A look at
// the stream now and then finds a priority message the subscription
// missed (see priorityRecheck). Messages put into the stream without a
// publish on their subject (a source or a mirror into it) are found only
// that way. A user who may not subscribe to those subjects
// (per-agent credentials without the line) gets the consumer at once.

// priorityWatch notices the priority messages of an inbox whose priority
// consumer is not made yet.
type priorityWatch struct {
	sub     *nats.Subscription
	arrived chan struct{}    // poked by the subscription; buffered 1
	back    chan nats.Status // the connection came back
}

// watchPriority subscribes to agent's priority subjects, calling seen
// (on the subscription's goroutine) for each message published there. It
// returns nil and no error when the server refuses the subscription or
// does not take it in time (a busy server): the consumer is then made at
// once; an error only when ctx ends.
func (s *Store) watchPriority(ctx context.Context, agent string, seen func()) (*priorityWatch, error) {
	subject := s.names.priorityFilter(agent)
	// Listened to before subscribing: a reconnect in between is not missed.
	w := &priorityWatch{arrived: make(chan struct{}, 1), back: s.nc.StatusChanged(nats.CONNECTED)}
	sub, err := s.subscribe(ctx, subject, func(*nats.Msg) {
		seen()
		select {
		case w.arrived <- struct{}{}:
		default:
		}
	})
	if err != nil {
		s.nc.RemoveStatusListener(w.back)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("watch priority messages on %s: %w", subject, err)
		}
		if !errors.Is(err, nats.ErrPermissionViolation) {
			s.opts.Logger.Debug("priority messages not watched; the priority consumer is made at once", "agent", agent, "err", err)
		}
		return nil, nil
	}
	w.sub = sub
	return w, nil
}

// stop ends the watch.
func (w *priorityWatch) stop(nc *nats.Conn) {
	_ = w.sub.Unsubscribe()
	nc.RemoveStatusListener(w.back)
}

// priorityStored reports whether agent's priority subjects hold messages
// (waiting, or delivered and not acknowledged: the stream is a work
// queue).
func (s *Store) priorityStored(ctx context.Context, agent string) (bool, error) {
	info, err := s.stream.Info(ctx, jetstream.WithSubjectFilter(s.names.priorityFilter(agent)))
	if err != nil {
		return false, fmt.Errorf("priority messages of %q: %w", agent, err)
	}
	return len(info.State.Subjects) > 0, nil
}

// priorityRecheck is how long until an inbox whose priority lane has not
// started looks at the stream again. The subscription can miss a message:
// one published as the inbox opened, stored after the first look, or
// published on another server of a cluster before the interest reached
// it. The first look comes 20 to 40 s after opening (past a mass start),
// the next ones every 4 to 6 minutes (for a thousand agents, about three
// stream infos a second); the spread keeps agents that started together
// from asking together.
func priorityRecheck(first bool) time.Duration {
	if first {
		return 20*time.Second + rand.N(20*time.Second)
	}
	return 4*time.Minute + rand.N(2*time.Minute)
}

// awaitPriority starts the priority lane once a priority message is
// published for the inbox, or found stored (at a recheck, or after the
// connection came back), and ends; or when the inbox closes. A start that
// fails is tried again after a wait; a look at the stream that fails (a
// busy server: after a restart every inbox looks at once) is taken again
// later, rather than the consumer made on the off chance.
func (in *Inbox) awaitPriority(w *priorityWatch) {
	defer w.stop(in.s.nc)
	waits := consumerRetry.Start()
	var retry <-chan time.Time
	recheck := time.NewTimer(priorityRecheck(true))
	defer recheck.Stop()
	for {
		look, settle := false, false
		select {
		case <-in.ctx.Done():
			return
		case <-w.arrived:
		case <-retry:
		case <-recheck.C:
			recheck.Reset(priorityRecheck(false))
			look = true
		case _, ok := <-w.back:
			if !ok {
				w.back = nil
				continue
			}
			// The subscription missed what was published while the
			// connection was down: look once the server has the
			// subscription again (a flush is answered after it).
			look, settle = true, true
		}
		if look {
			ctx, cancel := context.WithTimeout(in.ctx, requestTimeout)
			if settle {
				_ = in.s.nc.FlushWithContext(ctx)
			}
			stored, err := in.s.priorityStored(ctx, in.agent)
			cancel()
			if err != nil {
				in.s.opts.Logger.Debug("priority messages not looked for; looking again later", "agent", in.agent, "err", err)
				recheck.Reset(priorityRecheck(true))
			}
			if !stored {
				continue
			}
		}
		err := in.startPriority()
		if err == nil || in.ctx.Err() != nil {
			return
		}
		in.s.opts.Logger.Warn("priority consumer not started; trying again", "agent", in.agent, "err", err)
		retry = time.After(waits.Next())
	}
}

// expectUrgent holds the ordinary messages back (see pop) for a priority
// message published for the inbox before its priority lane started: it
// comes once the lane has started, and would otherwise be overtaken by
// ordinary messages sent after it. Next stops waiting for it after
// AckWait, should it not come (a copy the stream dropped as a
// duplicate).
func (in *Inbox) expectUrgent() {
	in.qmu.Lock()
	in.urgentDue = max(in.urgentDue, 1)
	in.qmu.Unlock()
}

// startPriority makes the priority lane's consumer and pulls from it:
// what it delivers is taken first, and what the server has for it (or a
// message seen published, see expectUrgent) is waited for (urgentDue) as
// at opening.
func (in *Inbox) startPriority() error {
	ctx, cancel := context.WithTimeout(in.ctx, consumerAttempts*requestTimeout)
	defer cancel()
	st, err := in.s.startConsumer(ctx, in.agent, lanePriority, in.rec)
	if err != nil {
		return err
	}
	in.mu.Lock()
	in.owed += st.owed
	in.seenBelow[lanePriority] = max(in.seenBelow[lanePriority], st.seenBelow)
	in.mu.Unlock()
	in.qmu.Lock()
	in.urgentDue, in.maxAckPending = max(in.urgentDue, st.pending), st.maxAckPending
	in.qmu.Unlock()
	cc, err := in.consume(st.cons, lanePriority)
	if err != nil {
		return err
	}
	in.ccs[lanePriority] = cc // read by close after the inbox's goroutines ended
	return nil
}
