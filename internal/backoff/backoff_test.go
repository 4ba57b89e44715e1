package backoff_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/backoff"
)

func TestDelayDoublesUpToMax(t *testing.T) {
	t.Parallel()
	p := backoff.Policy{Initial: 100 * time.Millisecond, Max: time.Second, Jitter: -1}
	var got []time.Duration
	for n := range 7 {
		got = append(got, p.Delay(n))
	}
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, time.Second, time.Second, time.Second}, got)
	assert.Equal(t, time.Second, p.Delay(1<<30), "a huge retry count stays at Max")
	assert.Equal(t, 100*ms, p.Delay(-3), "a negative retry counts as the first")
	assert.Equal(t, 100*ms, backoff.Policy{Initial: 100 * ms, Jitter: -1}.Delay(5), "Max below Initial: Initial")
	assert.Equal(t, time.Second, backoff.Policy{Max: time.Second, Jitter: -1}.Delay(5), "no Initial: Max")
	assert.Equal(t, time.Duration(0), backoff.Policy{}.Delay(3))
	huge := backoff.Policy{Initial: time.Duration(1 << 62), Max: time.Duration(1<<63 - 1), Jitter: -1}
	assert.Equal(t, time.Duration(1<<63-1), huge.Delay(3), "no overflow")
}

func TestDelayJitterStaysInItsBand(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		jitter float64
		low    time.Duration // of a 1 s wait
	}{
		{"default", 0, 500 * time.Millisecond},
		{"a fifth", 0.2, 800 * time.Millisecond},
		{"all", 1, 0},
		{"above 1 is 1", 7, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := backoff.Policy{Initial: time.Second, Max: time.Second, Jitter: tt.jitter}
			seen := map[time.Duration]bool{}
			for range 200 {
				d := p.Delay(0)
				assert.GreaterOrEqual(t, d, tt.low)
				assert.LessOrEqual(t, d, time.Second)
				seen[d] = true
			}
			assert.Greater(t, len(seen), 1, "the waits vary")
		})
	}
}

func TestBackoffNextAndReset(t *testing.T) {
	t.Parallel()
	b := backoff.Policy{Initial: time.Millisecond, Max: 4 * time.Millisecond, Jitter: -1}.Start()
	ms := time.Millisecond
	assert.Equal(t, []time.Duration{ms, 2 * ms, 4 * ms, 4 * ms}, []time.Duration{b.Next(), b.Next(), b.Next(), b.Next()})
	b.Reset()
	assert.Equal(t, ms, b.Next(), "after Reset the waits start again")
}

func TestSleepWaitsOnTheClock(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Unix(0, 0))
	done := make(chan error, 1)
	armed := clk.Armed()
	go func() { done <- backoff.Sleep(t.Context(), clk, time.Minute) }()
	<-armed
	clk.Add(59 * time.Second)
	select {
	case err := <-done:
		t.Fatalf("Sleep returned %v before its time", err)
	default:
	}
	clk.Add(time.Second)
	require.NoError(t, <-done)
}

func TestSleepEndsWithTheContext(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Unix(0, 0))
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	armed := clk.Armed()
	go func() { done <- backoff.Sleep(ctx, clk, time.Hour) }()
	<-armed
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
	assert.Equal(t, 0, clk.Waiters(), "the timer is stopped")

	assert.ErrorIs(t, backoff.Sleep(ctx, nil, 0), context.Canceled, "an ended context wins over a zero wait")
	assert.NoError(t, backoff.Sleep(t.Context(), nil, 0), "the real clock by default")
}
