package platformfake

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestMonitorWakesAWaiter: a wait returns once the state it waits for is
// notified, and with its context's error when that ends first.
func TestMonitorWakesAWaiter(t *testing.T) {
	t.Parallel()
	var m Monitor
	n := 0
	done := make(chan error, 1)
	go func() { done <- m.Wait(t.Context(), func() bool { return n == 2 }) }()
	for range 2 {
		m.Lock()
		n++
		m.Notify()
		m.Unlock()
	}
	require.NoError(t, testkit.Recv(t, done, "the wait's end"))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	assert.ErrorIs(t, m.Wait(ctx, func() bool { return false }), context.Canceled)
}

// TestFailuresComeInOrder: answers queued for a call come one per call,
// in order; other calls have none.
func TestFailuresComeInOrder(t *testing.T) {
	t.Parallel()
	var q Failures[int]
	q.Add("send", 1, 2)
	_, ok := q.Take("other")
	assert.False(t, ok)
	for _, want := range []int{1, 2} {
		got, ok := q.Take("send")
		require.True(t, ok)
		assert.Equal(t, want, got)
	}
	_, ok = q.Take("send")
	assert.False(t, ok, "the queue is empty")
}
