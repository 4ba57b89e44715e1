//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDoctorFixLeavesHardLinksAlone: a file in the tree with a second link
// (perhaps a file outside the tree) is reported, and --fix never changes
// its mode, which would change the outside file.
func TestDoctorFixLeavesHardLinksAlone(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	outside := filepath.Join(t.TempDir(), "precious")
	require.NoError(t, os.WriteFile(outside, []byte(message), 0o644))
	require.NoError(t, os.Chmod(outside, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(tr.root, "b", "inbox"), 0o700))
	linked := filepath.Join(tr.root, "b", "inbox", "1_a.msg.json")
	require.NoError(t, os.Link(outside, linked))

	d := doctorRun{root: tr.root, fix: true, now: time.Now(), offlineAfter: 30 * time.Second, maxBytes: 1 << 20}
	all := d.run()
	assert.Equal(t, os.FileMode(0o644), mode(t, outside), "the outside file keeps its mode")
	got := problems(all, "foreign")
	require.Len(t, got, 1, "%v", got)
	assert.Equal(t, linked, got[0].Path)
	assert.Equal(t, "b", got[0].Agent)
	assert.Contains(t, got[0].Detail, "a hard link (2 links)")
	assert.False(t, got[0].Fixed)
	assert.Empty(t, problems(all, "permissions"), "a hard link is not counted as a file to make private")
}
