package driver

import (
	"context"
	"errors"
	"io"
	"sync"
)

// InboxSet is the open or closed state of a Backend together with the
// inboxes it has open, so that closing the backend closes them. The zero
// value is an open backend with no inboxes. It is safe for concurrent use.
type InboxSet[T interface {
	comparable
	io.Closer
}] struct {
	mu     sync.Mutex
	closed bool
	open   map[T]struct{}
}

// Add records in as open. Once the backend is closed, Add closes in
// instead and returns ErrClosed.
func (s *InboxSet[T]) Add(in T) error {
	s.mu.Lock()
	closed := s.closed
	if !closed {
		if s.open == nil {
			s.open = map[T]struct{}{}
		}
		s.open[in] = struct{}{}
	}
	s.mu.Unlock()
	if closed {
		in.Close()
		return ErrClosed
	}
	return nil
}

// Remove forgets in; an inbox's Close calls it.
func (s *InboxSet[T]) Remove(in T) {
	s.mu.Lock()
	delete(s.open, in)
	s.mu.Unlock()
}

// Err returns ErrClosed once Close has been called, and nil before.
func (s *InboxSet[T]) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return nil
}

// Close marks the backend closed and closes every open inbox (without
// holding the set's lock, so their Close may call Remove), returning their
// errors joined. first is false, and nothing is done, when the set was
// closed already: a backend finishes its own Close only when first is true.
func (s *InboxSet[T]) Close() (first bool, err error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false, nil
	}
	s.closed = true
	open := make([]T, 0, len(s.open))
	for in := range s.open {
		open = append(open, in)
	}
	s.mu.Unlock()
	var errs []error
	for _, in := range open {
		errs = append(errs, in.Close())
	}
	return true, errors.Join(errs...)
}

// TakeTurn waits until it can put a token into sem, a channel with a
// buffer of one held by the call that is running (an inbox's Next, which
// gives the token back when it returns). It returns ErrClosed, without
// the token, once done is closed, and ctx's error once ctx ends.
func TakeTurn(ctx context.Context, sem chan<- struct{}, done <-chan struct{}) error {
	select {
	case sem <- struct{}{}:
		return nil
	case <-done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

// StillOpen returns ErrClosed once done is closed, otherwise ctx's error
// (nil while ctx goes on).
func StillOpen(ctx context.Context, done <-chan struct{}) error {
	select {
	case <-done:
		return ErrClosed
	default:
	}
	return ctx.Err()
}
