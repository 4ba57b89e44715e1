package channels_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels"
)

func TestRetryWait(t *testing.T) {
	busy := channels.Temporary(errors.New("busy"))
	r := channels.Retry{Backoff: time.Second, MaxBackoff: 5 * time.Second, MaxServerWait: time.Minute, Jitter: -1}
	tests := []struct {
		name    string
		attempt int
		err     error
		want    time.Duration
		wantOK  bool
	}{
		{"first retry", 1, busy, time.Second, true},
		{"doubles", 3, busy, 4 * time.Second, true},
		{"capped", 10, busy, 5 * time.Second, true},
		{"a huge attempt number does not overflow", 1 << 30, busy, 5 * time.Second, true},
		{"permanent: no retry", 1, errors.New("chat not found"), 0, false},
		{"server asks for longer", 1, channels.RetryAfter(errors.New("429"), 30*time.Second), 30 * time.Second, true},
		{"server asks for less: the backoff wins", 3, channels.RetryAfter(errors.New("429"), time.Second), 4 * time.Second, true},
		{"server asks for too long: given up", 1, channels.RetryAfter(errors.New("429"), time.Hour), 0, false},
		{"wrapped server wait", 1, errors.Join(errors.New("send"), channels.RetryAfter(errors.New("429"), 20*time.Second)), 20 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := r.Wait(tt.attempt, tt.err)
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRetryAfterIsTemporary(t *testing.T) {
	base := errors.New("rate limited")
	err := channels.RetryAfter(base, 3*time.Second)
	assert.True(t, channels.IsTemporary(err))
	assert.ErrorIs(t, err, base)
	assert.Equal(t, 3*time.Second, channels.RetryAfterOf(err))
	assert.Zero(t, channels.RetryAfterOf(base))
	assert.Contains(t, err.Error(), "rate limited")
	assert.NoError(t, channels.RetryAfter(nil, time.Second))
}

func TestRetryDo(t *testing.T) {
	busy := channels.Temporary(errors.New("busy"))
	t.Run("retries temporary errors with the waits of Wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			errs := []error{busy, channels.RetryAfter(errors.New("429"), 10*time.Second), nil}
			var waits []time.Duration
			start := time.Now()
			n, err := channels.Retry{Backoff: time.Second, Jitter: -1}.Do(t.Context(), func(context.Context) error {
				e := errs[0]
				errs = errs[1:]
				return e
			}, func(_ int, wait time.Duration, _ error) { waits = append(waits, wait) })
			require.NoError(t, err)
			assert.Equal(t, 3, n)
			assert.Equal(t, []time.Duration{time.Second, 10 * time.Second}, waits)
			assert.Equal(t, 11*time.Second, time.Since(start), "waited exactly as told (fake time)")
		})
	})
	t.Run("gives up after Attempts", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			calls := 0
			n, err := channels.Retry{Attempts: 3}.Do(t.Context(), func(context.Context) error { calls++; return busy }, nil)
			assert.ErrorIs(t, err, channels.ErrTemporary)
			assert.Equal(t, 3, n)
			assert.Equal(t, 3, calls)
		})
	})
	t.Run("a permanent error ends at once", func(t *testing.T) {
		perm := errors.New("forbidden")
		n, err := channels.Retry{}.Do(t.Context(), func(context.Context) error { return perm }, nil)
		assert.ErrorIs(t, err, perm)
		assert.Equal(t, 1, n)
	})
	t.Run("the context ends a wait", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			n, err := channels.Retry{Backoff: time.Hour, MaxBackoff: time.Hour}.Do(ctx, func(context.Context) error { return busy }, nil)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.ErrorIs(t, err, channels.ErrTemporary, "the send's own error is kept")
			assert.Equal(t, 1, n)
		})
	})
}

// Without Jitter set, a computed wait is shortened by a random part of up
// to half (package internal/backoff), so that senders refused together do
// not retry together; a server's wait is never shortened.
func TestRetryWaitJitters(t *testing.T) {
	t.Parallel()
	r := channels.Retry{Backoff: time.Second, MaxBackoff: time.Second}
	busy := channels.Temporary(errors.New("busy"))
	for range 100 {
		wait, ok := r.Wait(1, busy)
		require.True(t, ok)
		assert.GreaterOrEqual(t, wait, 500*time.Millisecond)
		assert.LessOrEqual(t, wait, time.Second)
		wait, ok = r.Wait(1, channels.RetryAfter(busy, 3*time.Second))
		require.True(t, ok)
		assert.Equal(t, 3*time.Second, wait)
	}
}
