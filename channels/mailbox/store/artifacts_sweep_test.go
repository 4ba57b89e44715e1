package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// updateCounter is a memstore that counts the record updates it writes.
type updateCounter struct {
	*memstore.Store
	writes int
}

func (u *updateCounter) UpdateRecord(ctx context.Context, r driver.Record, update func([]byte) ([]byte, error)) ([]byte, error) {
	return u.Store.UpdateRecord(ctx, r, func(old []byte) ([]byte, error) {
		data, err := update(old)
		if err == nil {
			u.writes++
		}
		return data, err
	})
}

// TestSweepNotDueWritesNothing: a sweep skipped because another swept
// within Every writes nothing (a thousand agents that start at once read
// the record of the last sweep; one writes it).
func TestSweepNotDueWritesNothing(t *testing.T) {
	ctx := testkit.Ctx(t)
	be := &updateCounter{Store: memstore.New(memstore.Options{})}
	a, err := store.New(be, nil).Artifacts()
	require.NoError(t, err)
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	first, err := a.Sweep(ctx, store.ArtifactRetention{Now: at, Every: time.Hour})
	require.NoError(t, err)
	require.False(t, first.Skipped)
	require.Equal(t, 1, be.writes)

	for _, later := range []time.Duration{time.Minute, 59 * time.Minute} {
		next, err := a.Sweep(ctx, store.ArtifactRetention{Now: at.Add(later), Every: time.Hour})
		require.NoError(t, err)
		assert.True(t, next.Skipped)
	}
	assert.Equal(t, 1, be.writes, "the skipped sweeps wrote nothing")
	last, err := a.Sweep(ctx, store.ArtifactRetention{Now: at.Add(time.Hour), Every: time.Hour})
	require.NoError(t, err)
	assert.False(t, last.Skipped, "due an hour later")
	assert.Equal(t, 2, be.writes)
}
