package agentloop

import (
	"context"
	"sync"

	"github.com/switchboard-dev/switchboard/bus"
)

// scheduler runs the messages of each session in order, one worker
// goroutine per session with pending messages, and at most cap(slots)
// messages at once. A worker takes a slot per message, so a busy session
// cannot starve the others. At most cap(room) messages wait.
type scheduler struct {
	handle func(ctx context.Context, in bus.InboundMessage)
	slots  chan struct{}
	room   chan struct{}
	wg     sync.WaitGroup

	mu     sync.Mutex
	queues map[string]*sessionQueue
}

type sessionQueue struct {
	pending []bus.InboundMessage
}

func newScheduler(concurrency, queueSize int, handle func(context.Context, bus.InboundMessage)) *scheduler {
	return &scheduler{
		handle: handle,
		slots:  make(chan struct{}, concurrency),
		room:   make(chan struct{}, queueSize),
		queues: map[string]*sessionQueue{},
	}
}

// dispatch queues in for its session, starting the session's worker if it
// has none. It waits while the queue is full.
func (s *scheduler) dispatch(ctx context.Context, in bus.InboundMessage) error {
	select {
	case s.room <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	key := in.SessionKey()
	s.mu.Lock()
	defer s.mu.Unlock()
	if q, ok := s.queues[key]; ok {
		q.pending = append(q.pending, in)
		return nil
	}
	q := &sessionQueue{pending: []bus.InboundMessage{in}}
	s.queues[key] = q
	s.wg.Go(func() { s.work(ctx, key, q) })
	return nil
}

// work handles the session's messages until its queue is empty.
func (s *scheduler) work(ctx context.Context, key string, q *sessionQueue) {
	for {
		if ctx.Err() != nil {
			s.drop(key, q)
			return
		}
		select {
		case s.slots <- struct{}{}:
		case <-ctx.Done():
			s.drop(key, q)
			return
		}
		in, ok := s.next(key, q)
		if !ok {
			<-s.slots
			return
		}
		s.handle(ctx, in)
		<-s.slots
	}
}

// next takes the session's next message, or retires the session's queue
// when it is empty.
func (s *scheduler) next(key string, q *sessionQueue) (bus.InboundMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(q.pending) == 0 {
		delete(s.queues, key)
		return bus.InboundMessage{}, false
	}
	in := q.pending[0]
	q.pending[0] = bus.InboundMessage{}
	q.pending = q.pending[1:]
	<-s.room
	return in, true
}

// drop forgets the session's pending messages (the loop is stopping).
func (s *scheduler) drop(key string, q *sessionQueue) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range q.pending {
		<-s.room
	}
	q.pending = nil
	delete(s.queues, key)
}

// wait returns when every worker has ended.
func (s *scheduler) wait() { s.wg.Wait() }
