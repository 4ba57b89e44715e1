package testkit

import (
	"context"
	"testing"
	"time"
)

// WaitLimit bounds every wait of a test; reaching it is a failure, never
// a way to let time pass.
const WaitLimit = 20 * time.Second

// Ctx returns a context that ends after WaitLimit, or when the test ends
// (just before its cleanups run).
func Ctx(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), WaitLimit)
	t.Cleanup(cancel)
	return ctx
}

// Recv returns the next value from ch, failing the test after WaitLimit
// or when ch is closed.
func Recv[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	timer := time.NewTimer(WaitLimit)
	defer timer.Stop()
	select {
	case v, ok := <-ch:
		if !ok {
			t.Fatalf("%s: channel closed", what)
		}
		return v
	case <-timer.C:
		t.Fatalf("no %s within %s", what, WaitLimit)
	}
	panic("unreachable")
}

// Closed waits until ch is closed (or yields a value), failing the test
// after WaitLimit.
func Closed[T any](t testing.TB, ch <-chan T, what string) {
	t.Helper()
	timer := time.NewTimer(WaitLimit)
	defer timer.Stop()
	select {
	case <-ch:
	case <-timer.C:
		t.Fatalf("%s did not happen within %s", what, WaitLimit)
	}
}
