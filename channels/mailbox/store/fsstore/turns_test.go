package fsstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One turn per period, shared by every store on the root; a clock moved
// back, an unreadable file and a held lock are handled.
func TestTakeTurn(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mb")
	var stores []*Store
	for range 3 {
		s, err := Open(Options{Root: root, NoSync: true, Logger: discardLogger()})
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		stores = append(stores, s)
	}
	ctx := context.Background()
	start := time.Unix(1_800_000_000, 0)
	const every = 15 * time.Second
	turns := func(now time.Time) int {
		n := 0
		for _, s := range stores {
			ok, err := s.TakeTurn(ctx, "mark-stale", now, every)
			require.NoError(t, err)
			if ok {
				n++
			}
		}
		return n
	}
	assert.Equal(t, 1, turns(start), "the first caller takes the first turn")
	assert.Equal(t, 0, turns(start.Add(every-time.Millisecond)), "no turn within the period")
	assert.Equal(t, 1, turns(start.Add(every)), "one turn once it passed")
	assert.Equal(t, 1, turns(start.Add(-time.Hour)), "a clock moved back takes a turn")

	path := filepath.Join(root, turnPrefix+"mark-stale")
	require.NoError(t, os.WriteFile(path, []byte("garbage"), 0o600))
	assert.Equal(t, 1, turns(start), "an unreadable file is no turn")

	f, err := openLockFile(path)
	require.NoError(t, err)
	locked, err := tryLock(f)
	require.NoError(t, err)
	require.True(t, locked)
	assert.Equal(t, 0, turns(start.Add(time.Hour)), "while someone decides, the others skip")
	require.NoError(t, releaseLock(f))

	_, err = stores[0].TakeTurn(ctx, "Bad/Duty", start, every)
	assert.Error(t, err)
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}
