package bus

import (
	"context"
	"sync"
)

// queue is one bounded, closable FIFO over a buffered channel.
//
// Closing is race-free without ever sending on a closed channel: publishers
// send only while holding mu shared, after checking done. close first closes
// done, which wakes publishers waiting for room (they return ErrClosed), then
// takes mu exclusively, which waits until no publisher is still inside
// publish, and only then closes ch. Consumers therefore receive what was
// queued before Close and then see ch closed, as with any Go channel, and
// need no third select case to learn about Close.
type queue[T any] struct {
	ch   chan T
	mu   sync.RWMutex // publishers hold it shared; close takes it to wait them out
	done chan struct{}
	once sync.Once
}

func newQueue[T any](capacity int) *queue[T] {
	return &queue[T]{
		ch:   make(chan T, capacity),
		done: make(chan struct{}),
	}
}

func (q *queue[T]) publish(ctx context.Context, v *T) error {
	q.mu.RLock()
	defer q.mu.RUnlock()
	select {
	case <-q.done:
		return ErrClosed
	default:
	}
	select {
	case q.ch <- *v:
		return nil
	default:
	}
	select {
	case q.ch <- *v:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-q.done:
		return ErrClosed
	}
}

func (q *queue[T]) consume(ctx context.Context, v *T) error {
	var ok bool
	if done := ctx.Done(); done == nil {
		// A context that never ends: a plain receive, the cheapest wait.
		*v, ok = <-q.ch
	} else {
		select {
		case *v, ok = <-q.ch:
		default:
			select {
			case *v, ok = <-q.ch:
			case <-done:
				return ctx.Err()
			}
		}
	}
	if !ok {
		return ErrClosed
	}
	return nil
}

func (q *queue[T]) close() {
	q.once.Do(func() {
		close(q.done) // wake publishers blocked on a full queue
		q.mu.Lock()   // wait until none is still inside publish
		close(q.ch)   // no send can follow: later publishers see done first
		q.mu.Unlock()
	})
}

func (q *queue[T]) depth() int { return len(q.ch) }
