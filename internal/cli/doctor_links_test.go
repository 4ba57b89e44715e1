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

// TestDoctorFixNeverFollowsASymlinkOutOfTheRoot: an agent's tmp/ (or
// inbox/, or a whole agent folder) that is a symlink to a folder outside
// the tree is reported as foreign, and --fix deletes nothing there, though
// the old files there look like orphan staging files.
func TestDoctorFixNeverFollowsASymlinkOutOfTheRoot(t *testing.T) {
	t.Parallel()
	tr := newTree(t)
	outside := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for _, name := range []string{"precious", "notes.tmp", "1_a.msg.json"} {
		p := filepath.Join(outside, name)
		require.NoError(t, os.WriteFile(p, []byte(message), 0o600))
		require.NoError(t, os.Chtimes(p, old, old))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(tr.root, "b"), 0o700))
	require.NoError(t, os.Symlink(outside, filepath.Join(tr.root, "b", "tmp")))
	require.NoError(t, os.Symlink(outside, filepath.Join(tr.root, "b", "inbox")))
	require.NoError(t, os.Symlink(outside, filepath.Join(tr.root, "c")))

	d := doctorRun{root: tr.root, fix: true, now: time.Now(), offlineAfter: 30 * time.Second, maxBytes: 1 << 20}
	all := d.run()
	for _, name := range []string{"precious", "notes.tmp", "1_a.msg.json"} {
		assert.FileExists(t, filepath.Join(outside, name), "nothing outside the tree is touched")
	}
	assert.Empty(t, problems(all, "staging"), "nothing outside the tree is taken for staging files")
	assert.Len(t, problems(all, "foreign"), 3, "the symlinks are reported")
}
