package natsstore

import (
	"context"
	"errors"
	"fmt"
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
// gets no answer in time (a busy server). A user who may not subscribe to those subjects
// (per-agent credentials without the line) gets the consumer at once.

// priorityWatch notices the priority messages of an inbox whose priority
// consumer is not made yet.
type priorityWatch struct {
	sub     *nats.Subscription
	arrived chan struct{}    // poked by the subscription; buffered 1
	back    chan nats.Status // the connection came back
}

// watchPriority subscribes to agent's priority subjects. It returns nil
// and no error when the server refuses the subscription.
func (s *Store) watchPriority(ctx context.Context, agent string) (*priorityWatch, error) {
	subject := s.names.priorityFilter(agent)
	w := &priorityWatch{arrived: make(chan struct{}, 1)}
	sub, err := s.subscribe(ctx, subject, func(*nats.Msg) {
		select {
		case w.arrived <- struct{}{}:
		default:
		}
	})
	if errors.Is(err, nats.ErrPermissionViolation) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("watch priority messages on %s: %w", subject, err)
	}
	w.sub, w.back = sub, s.nc.StatusChanged(nats.CONNECTED)
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

// awaitPriority starts the priority lane once a priority message is
// published for the inbox, or found stored after the connection came
// back, and ends; or when the inbox closes. A start that fails is tried
// again after a wait.
func (in *Inbox) awaitPriority(w *priorityWatch) {
	defer w.stop(in.s.nc)
	waits := consumerRetry.Start()
	var retry <-chan time.Time
	for {
		select {
		case <-in.ctx.Done():
			return
		case <-w.arrived:
		case <-retry:
		case _, ok := <-w.back:
			if !ok {
				w.back = nil
				continue
			}
			// The subscription missed what was published while the
			// connection was down: look at the stream once the server
			// has the subscription again (a flush is answered after it).
			settle, cancel := context.WithTimeout(in.ctx, requestTimeout)
			_ = in.s.nc.FlushWithContext(settle)
			stored, err := in.s.priorityStored(settle, in.agent)
			cancel()
			if err == nil && !stored {
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

// startPriority makes the priority lane's consumer and pulls from it:
// what it delivers is taken first, and what the server has for it is
// waited for (urgentDue) as at opening.
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
	in.urgentDue, in.maxAckPending = st.pending, st.maxAckPending
	in.qmu.Unlock()
	cc, err := in.consume(st.cons, lanePriority)
	if err != nil {
		return err
	}
	in.ccs[lanePriority] = cc // read by close after the inbox's goroutines ended
	return nil
}
