package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDoctorCorruptRegistryCopies: doctor counts the copies of a corrupt
// registry and names the newest; --fix removes all but the newest.
func TestDoctorCorruptRegistryCopies(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	tr.write(registryFile, `{}`)
	base := time.Now().Add(-time.Hour)
	for i := 1; i <= 5; i++ {
		p := tr.write(fmt.Sprintf("%s.corrupt-1700000000-%d", registryFile, i), "{")
		at := base.Add(time.Duration(i) * time.Minute)
		require.NoError(t, os.Chtimes(p, at, at))
	}
	newest := registryFile + ".corrupt-1700000000-5"

	got := problems(tr.doctor(), "registry")
	require.Len(t, got, 1, "%v", got)
	assert.Equal(t, severityWarn, got[0].Severity)
	assert.True(t, got[0].Fixable)
	assert.Contains(t, got[0].Detail, "5 copies of a corrupt registry")
	assert.Contains(t, got[0].Detail, "newest "+newest)

	d := doctorRun{root: tr.root, fix: true, now: time.Now(), offlineAfter: 30 * time.Second, maxBytes: 1 << 20}
	fixed := problems(d.run(), "registry")
	require.Len(t, fixed, 1, "%v", fixed)
	assert.True(t, fixed[0].Fixed)
	left, err := filepath.Glob(filepath.Join(tr.root, registryFile+".corrupt-*"))
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(tr.root, newest)}, left)
}
