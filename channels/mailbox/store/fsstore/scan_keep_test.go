package fsstore

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKeepForGrowsWithBacklog: a scan keeps at least the inbox's batch,
// a quarter of a large backlog, and never more than maxScanBatch.
func TestKeepForGrowsWithBacklog(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ floor, total, want int }{
		{scanBatch, 0, scanBatch},
		{scanBatch, 4000, scanBatch},
		{scanBatch, 20000, 5000},
		{scanBatch, 10_000_000, maxScanBatch},
		{16, 150, 37},
		{16, 10, 16},
	} {
		assert.Equal(t, tt.want, keepFor(tt.floor, tt.total), "floor %d, %d waiting", tt.floor, tt.total)
	}
}
