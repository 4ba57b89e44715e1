package route

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEachCallsEveryIndexWithinTheBound(t *testing.T) {
	t.Parallel()
	var running, most atomic.Int32
	seen := make([]atomic.Int32, 100)
	errs := Each(context.Background(), len(seen), 4, func(_ context.Context, i int) error {
		now := running.Add(1)
		for {
			m := most.Load()
			if now <= m || most.CompareAndSwap(m, now) {
				break
			}
		}
		seen[i].Add(1)
		running.Add(-1)
		return nil
	})
	require.Len(t, errs, len(seen))
	for i := range seen {
		assert.NoError(t, errs[i])
		assert.Equal(t, int32(1), seen[i].Load(), "index %d", i)
	}
	assert.LessOrEqual(t, most.Load(), int32(4))
	assert.Empty(t, Each(context.Background(), 0, 0, func(context.Context, int) error { panic("called") }))
}

func TestEachStopsStartingAfterAFailure(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	errs := Each(context.Background(), 50, 1, func(_ context.Context, i int) error {
		if i == 3 {
			return boom
		}
		return nil
	})
	for i, err := range errs {
		switch {
		case i < 3:
			assert.NoError(t, err)
		case i == 3:
			assert.ErrorIs(t, err, boom)
		default:
			assert.ErrorIs(t, err, ErrNotAttempted, "index %d", i)
		}
	}
}

func TestEachStopsWithTheContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	errs := Each(ctx, 10, 1, func(_ context.Context, i int) error {
		if i == 1 {
			cancel()
		}
		return nil
	})
	assert.NoError(t, errs[0])
	assert.NoError(t, errs[1])
	for _, err := range errs[2:] {
		assert.ErrorIs(t, err, context.Canceled)
	}
}
