package natsstore_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// One turn per period among every store of the namespace, however many
// ask at once; a clock moved back takes a turn.
func TestTakeTurn(t *testing.T) {
	ts := sharedServer(t)
	ctx := testkit.Ctx(t)
	var stores []*store.Store
	for range 4 {
		stores = append(stores, store.New(ts.open(t, nil), nil))
	}
	assert.True(t, stores[0].Has(store.CanTakeTurns))
	start := time.Unix(1_800_000_000, 0)
	const every = 15 * time.Second
	turns := func(now time.Time) int64 {
		var n atomic.Int64
		var wg sync.WaitGroup
		for _, s := range stores {
			wg.Go(func() {
				ok, err := s.TakeTurn(ctx, "mark-stale", now, every)
				assert.NoError(t, err)
				if ok {
					n.Add(1)
				}
			})
		}
		wg.Wait()
		return n.Load()
	}
	assert.Equal(t, int64(1), turns(start), "one of those asking at once")
	assert.Equal(t, int64(0), turns(start.Add(every-time.Millisecond)))
	assert.Equal(t, int64(1), turns(start.Add(every)))
	assert.Equal(t, int64(1), turns(start.Add(-time.Hour)), "a clock moved back")
	_, err := stores[0].TakeTurn(ctx, "Bad.Duty", start, every)
	require.Error(t, err)
}
