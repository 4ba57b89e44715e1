package route

import (
	"context"
	"errors"
	"sync"
)

// FanoutParallel is how many deliveries of one fan-out run at once: each
// waits mostly on its own file and folder syncs, so several in flight let
// the disk take them together, and a bound keeps a send to hundreds of
// agents from opening hundreds of files at once.
const FanoutParallel = 16

// ErrNotAttempted is the error Each reports for a call it did not make
// because an earlier one failed.
var ErrNotAttempted = errors.New("not attempted: an earlier delivery of the same send failed")

// Each calls fn(ctx, i) for every i from 0 to n-1, up to parallel at a
// time (FanoutParallel when parallel <= 0), and returns the error of
// each call by i. Once a call fails, or ctx ends, no further call is
// started: those not started report ErrNotAttempted (or ctx's error).
// The calls already running finish.
func Each(ctx context.Context, n, parallel int, fn func(ctx context.Context, i int) error) []error {
	if parallel <= 0 {
		parallel = FanoutParallel
	}
	errs := make([]error, n)
	var (
		mu     sync.Mutex
		next   int
		failed bool
		wg     sync.WaitGroup
	)
	take := func() (int, error) {
		mu.Lock()
		defer mu.Unlock()
		if next >= n {
			return -1, nil
		}
		i := next
		next++
		switch {
		case ctx.Err() != nil:
			return i, ctx.Err()
		case failed:
			return i, ErrNotAttempted
		}
		return i, nil
	}
	for range min(parallel, n) {
		wg.Go(func() {
			for {
				i, skip := take()
				if i < 0 {
					return
				}
				if skip != nil {
					errs[i] = skip
					continue
				}
				if errs[i] = fn(ctx, i); errs[i] != nil {
					mu.Lock()
					failed = true
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return errs
}
