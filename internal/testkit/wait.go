package testkit

import (
	"context"
	"testing"
	"time"
)

// WaitLimit bounds a test's wait for one event (a message, a line of
// output, a process ready, a request answered): 20 s times Scale. Reaching
// it is a failure, never a way to let time pass. A wait for more work than
// one event takes For's limit instead.
var WaitLimit = Scaled(20 * time.Second)

// beforeTimeout is how long before go test's -timeout every limit ends,
// so that a test that waits in vain fails with its own message (and its
// cleanups run) instead of the timeout's dump of every goroutine.
const beforeTimeout = 10 * time.Second

// limitOf returns limit, cut short to end before t's deadline (go test's
// -timeout), if there is one and it comes first.
func limitOf(t testing.TB, limit time.Duration) time.Duration {
	if dt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := dt.Deadline(); ok {
			if left := time.Until(deadline) - beforeTimeout; left < limit {
				return max(left, time.Second)
			}
		}
	}
	return limit
}

// Ctx returns a context that ends after WaitLimit, or when the test ends
// (just before its cleanups run): for one operation, or for a few that
// each take an instant.
func Ctx(t testing.TB) context.Context {
	t.Helper()
	return CtxFor(t, 0)
}

// CtxFor returns a context that ends after For(work), or when the test
// ends (just before its cleanups run): for a sequence of operations whose
// amount is known, such as draining n messages.
func CtxFor(t testing.TB, work time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limitOf(t, For(work)))
	t.Cleanup(cancel)
	return ctx
}

// Recv returns the next value from ch, failing the test after WaitLimit
// or when ch is closed.
func Recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	return RecvWithin(t, ch, what, WaitLimit)
}

// RecvWithin is Recv with another limit (see For).
func RecvWithin[T any](t testing.TB, ch <-chan T, what string, limit time.Duration) T {
	t.Helper()
	limit = limitOf(t, limit)
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case v, ok := <-ch:
		if !ok {
			t.Fatalf("%s: channel closed", what)
		}
		return v
	case <-timer.C:
		t.Fatalf("no %s within %s", what, limit)
	}
	panic("unreachable")
}

// Closed waits until ch is closed (or yields a value), failing the test
// after WaitLimit.
func Closed[T any](t testing.TB, ch <-chan T, what string) {
	t.Helper()
	ClosedWithin(t, ch, what, WaitLimit)
}

// ClosedWithin is Closed with another limit (see For).
func ClosedWithin[T any](t testing.TB, ch <-chan T, what string, limit time.Duration) {
	t.Helper()
	limit = limitOf(t, limit)
	timer := time.NewTimer(limit)
	defer timer.Stop()
	select {
	case <-ch:
	case <-timer.C:
		t.Fatalf("%s did not happen within %s", what, limit)
	}
}
