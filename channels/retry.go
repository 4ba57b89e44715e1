package channels

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/backoff"
)

// Retry is the policy for trying again what failed with a temporary error
// (IsTemporary): a send the platform refused for now, a rate limit, a
// connection that broke. The Manager retries sends with it, and a channel
// uses the same policy for what it retries itself (a reconnect, the rest
// of a message sent in parts). Wait is the one place that computes a wait.
type Retry struct {
	// Attempts is how many tries Do makes in all (default 4).
	Attempts int
	// Backoff is the wait before the first retry; it doubles with every
	// retry up to MaxBackoff (defaults 100ms and 5s).
	Backoff    time.Duration
	MaxBackoff time.Duration
	// MaxServerWait is the longest wait a server may ask for (RetryAfter)
	// that is honoured; a server that asks for more ends the retries, and
	// the error is reported (default 1 minute).
	MaxServerWait time.Duration
	// Jitter is the part of each computed wait that is random (see
	// package internal/backoff: 0 takes its default, a half; negative
	// waits exactly). A server's wait is never shortened.
	Jitter float64
	// Clock times the waits of Do (default clock.Real).
	Clock clock.Clock
}

// withDefaults returns r with its zero fields set to the defaults.
func (r Retry) withDefaults() Retry {
	if r.Attempts <= 0 {
		r.Attempts = 4
	}
	if r.Backoff <= 0 {
		r.Backoff = 100 * time.Millisecond
	}
	if r.MaxBackoff <= 0 {
		r.MaxBackoff = 5 * time.Second
	}
	if r.MaxServerWait <= 0 {
		r.MaxServerWait = time.Minute
	}
	return r
}

// Wait returns how long to wait after failed attempt n (1 for the first
// try) that failed with err: Backoff doubled n-1 times, at most
// MaxBackoff, less a random part (Jitter), or longer when err carries a server's wait (RetryAfter).
// ok is false when err is not temporary, or when the server asks for more
// than MaxServerWait: then there is no retry.
func (r Retry) Wait(n int, err error) (wait time.Duration, ok bool) {
	if !IsTemporary(err) {
		return 0, false
	}
	r = r.withDefaults()
	wait = backoff.Policy{Initial: r.Backoff, Max: r.MaxBackoff, Jitter: r.Jitter}.Delay(n - 1)
	if server := RetryAfterOf(err); server > 0 {
		if server > r.MaxServerWait {
			return 0, false
		}
		wait = max(wait, server)
	}
	return wait, true
}

// Do calls op until it succeeds, fails with an error Wait does not retry,
// or Attempts tries are spent, waiting between tries as Wait says.
// onRetry, when not nil, is told of each failure that is retried, before
// the wait. Do returns the number of tries and the last error; when ctx
// ends during a wait, that error is joined with ctx's.
func (r Retry) Do(ctx context.Context, op func(context.Context) error, onRetry func(attempt int, wait time.Duration, err error)) (attempts int, err error) {
	r = r.withDefaults()
	for attempt := 1; ; attempt++ {
		err := op(ctx)
		if err == nil {
			return attempt, nil
		}
		wait, ok := r.Wait(attempt, err)
		if !ok || attempt >= r.Attempts {
			return attempt, err
		}
		if onRetry != nil {
			onRetry(attempt, wait, err)
		}
		if werr := backoff.Sleep(ctx, r.Clock, wait); werr != nil {
			return attempt, errors.Join(err, werr)
		}
	}
}

// retryAfterError is a temporary error with the wait a server asked for.
type retryAfterError struct {
	err  error
	wait time.Duration
}

func (e retryAfterError) Error() string {
	return fmt.Sprintf("%v (the server asks to wait %s)", e.err, e.wait)
}
func (e retryAfterError) Unwrap() []error { return []error{e.err, ErrTemporary} }

// RetryAfter marks err as temporary (see Temporary) and records that the
// server asked to wait d before the next try (an HTTP 429's Retry-After, a
// platform's rate-limit reset). It returns nil for a nil error.
func RetryAfter(err error, d time.Duration) error {
	if err == nil {
		return nil
	}
	return retryAfterError{err: err, wait: d}
}

// RetryAfterOf returns the wait that err, or an error it wraps, asks for
// (RetryAfter), or 0.
func RetryAfterOf(err error) time.Duration {
	var ra retryAfterError
	if errors.As(err, &ra) {
		return ra.wait
	}
	return 0
}
