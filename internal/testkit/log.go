package testkit

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// Log records values as they happen and lets a test wait for one. It is
// safe for concurrent use; the zero value is not: use NewLog.
type Log[T any] struct {
	mu      sync.Mutex
	items   []T
	taken   []bool
	changed chan struct{} // closed and replaced on every Add
}

// NewLog returns an empty Log.
func NewLog[T any]() *Log[T] { return &Log[T]{changed: make(chan struct{})} }

// Add records v.
func (l *Log[T]) Add(v T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append(l.items, v)
	l.taken = append(l.taken, false)
	close(l.changed)
	l.changed = make(chan struct{})
}

// WaitFor returns the first value match accepts (nil: any), waiting up
// to WaitLimit for it. what names it in the failure.
func (l *Log[T]) WaitFor(t testing.TB, what string, match func(T) bool) T {
	t.Helper()
	return l.wait(t, what, match, false)
}

// Take is WaitFor for a value no earlier Take returned: each value is
// taken once.
func (l *Log[T]) Take(t testing.TB, what string, match func(T) bool) T {
	t.Helper()
	return l.wait(t, what, match, true)
}

func (l *Log[T]) wait(t testing.TB, what string, match func(T) bool, take bool) T {
	t.Helper()
	limit := limitOf(t, WaitLimit)
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		for i, v := range l.items {
			if (!take || !l.taken[i]) && (match == nil || match(v)) {
				if take {
					l.taken[i] = true
				}
				l.mu.Unlock()
				return v
			}
		}
		changed := l.changed
		l.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("no %s within %s; seen: %s", what, limit, l)
		}
	}
}

// WaitCount waits until n recorded values match. Its limit is per value:
// it fails when WaitLimit passes without one more matching value, so that
// a wait for many is not held to the limit of one, and one that stalls
// fails as soon as a wait for one would.
func (l *Log[T]) WaitCount(t testing.TB, what string, n int, match func(T) bool) {
	t.Helper()
	limit := limitOf(t, WaitLimit)
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	last := -1
	for {
		l.mu.Lock()
		changed := l.changed
		l.mu.Unlock()
		got := l.Count(match)
		if got >= n {
			return
		}
		if got > last {
			if last >= 0 {
				limit = limitOf(t, WaitLimit)
				deadline.Reset(limit)
			}
			last = got
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("%d %s, want %d: none more within %s; seen: %s", got, what, n, limit, l)
		}
	}
}

// Count returns how many recorded values match (nil: all).
func (l *Log[T]) Count(match func(T) bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, v := range l.items {
		if match == nil || match(v) {
			n++
		}
	}
	return n
}

// All returns the recorded values, oldest first.
func (l *Log[T]) All() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.items)
}

// String lists the recorded values.
func (l *Log[T]) String() string { return fmt.Sprintf("%+v", l.All()) }
