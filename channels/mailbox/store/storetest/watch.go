package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Watcher is what follows new messages: a *store.Store, or a backend
// itself (driver.Watcher) in a backend's own tests.
type Watcher interface {
	Watch(ctx context.Context, agent string, w store.WatchFuncs) error
}

// Watching is a Watcher's Watch running for a test: what it
// reported, in order, and its notices.
type Watching struct {
	// Arrived holds the messages reported; Notices the notice lines.
	Arrived *testkit.Log[store.Watched]
	Notices *testkit.Log[string]
	cancel  context.CancelFunc
	done    chan error
	next    int // Arrived entries already returned by Next
}

// StartWatch runs w.Watch(agent) until Stop or the end of the test, and
// returns once Watch said it is ready. The test fails if Watch ends
// early or returns an error when stopped.
func StartWatch(t testing.TB, w Watcher, agent string) *Watching {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	wa := &Watching{Arrived: testkit.NewLog[store.Watched](), Notices: testkit.NewLog[string](),
		cancel: cancel, done: make(chan error, 1)}
	ready := make(chan struct{})
	go func() {
		wa.done <- w.Watch(ctx, agent, store.WatchFuncs{
			Arrived: func(got store.Watched) error { wa.Arrived.Add(got); return nil },
			Ready:   func() { close(ready) },
			Notice:  wa.Notices.Add,
		})
	}()
	t.Cleanup(func() { wa.Stop(t) })
	limit := time.NewTimer(testkit.WaitLimit)
	defer limit.Stop()
	select {
	case <-ready:
	case err := <-wa.done:
		wa.done <- err
		t.Fatalf("Watch ended before it was ready: %v", err)
	case <-limit.C:
		t.Fatalf("Watch not ready within %s", testkit.WaitLimit)
	}
	return wa
}

// Next waits for the next message reported (in the order reported).
func (wa *Watching) Next(t testing.TB) store.Watched {
	t.Helper()
	want := wa.next + 1
	wa.Arrived.WaitCount(t, "reported message", want, nil)
	wa.next = want
	return wa.Arrived.All()[want-1]
}

// Stop ends the Watch and checks that it returned nil. It may be called
// more than once.
func (wa *Watching) Stop(t testing.TB) {
	t.Helper()
	if wa.cancel == nil {
		return
	}
	wa.cancel()
	wa.cancel = nil
	limit := time.NewTimer(testkit.WaitLimit)
	defer limit.Stop()
	select {
	case err := <-wa.done:
		assert.NoError(t, err, "Watch returns nil when its context ends")
	case <-limit.C:
		require.Fail(t, "Watch did not end with its context")
	}
}
