package fsstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// After the first send the recipient's folders are not checked again, so
// a folder removed later must be noticed by the next send and recreated.
func TestDeliverRecreatesRemovedFolders(t *testing.T) {
	t.Parallel()
	for _, gone := range []string{"", inboxDir, tmpDir} {
		t.Run("removed "+gone+"/", func(t *testing.T) {
			s, _ := openMsgStore(t)
			deliver(t, s, newMsg("alice", "bob", "first"))
			require.NoError(t, os.RemoveAll(agentPath(s, "bob", gone)))

			m := newMsg("alice", "bob", "second")
			deliver(t, s, m)
			assert.Contains(t, names(t, agentPath(s, "bob", inboxDir)), envelope.FileName(m))
			assert.Empty(t, names(t, agentPath(s, "bob", tmpDir)), "staging file removed")
			for _, sub := range []string{"", inboxDir, processedDir, tmpDir} {
				fi, err := os.Lstat(agentPath(s, "bob", sub))
				require.NoError(t, err, sub)
				assert.True(t, fi.IsDir(), sub)
				assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), sub)
			}
		})
	}
}

// A folder replaced by a symlink while the recipient was gone is refused
// when the folders are checked anew, and nothing is written through it.
func TestDeliverRefusesSymlinkAfterRemoval(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	deliver(t, s, newMsg("alice", "bob", "first"))
	require.NoError(t, os.RemoveAll(agentPath(s, "bob")))
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, agentPath(s, "bob")))

	err := s.Deliver(context.Background(), newMsg("alice", "bob", "second"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "symlink")
	assert.Empty(t, names(t, outside), "nothing written through the link")
}

// A checked folder swapped for a symlink to a look-alike tree (with its own
// tmp/ and inbox/, so no send fails on a missing folder) is noticed by the
// next send: refused, nothing written through the link.
func TestDeliverRefusesFolderSwappedForSymlink(t *testing.T) {
	t.Parallel()
	for _, swapped := range []string{"", inboxDir, tmpDir} {
		t.Run("swapped "+swapped+"/", func(t *testing.T) {
			s, _ := openMsgStore(t)
			deliver(t, s, newMsg("alice", "bob", "first"))
			outside := t.TempDir()
			for _, sub := range []string{inboxDir, processedDir, tmpDir} {
				require.NoError(t, os.Mkdir(filepath.Join(outside, sub), 0o700))
			}
			target := outside
			if swapped != "" {
				target = filepath.Join(outside, swapped)
			}
			require.NoError(t, os.RemoveAll(agentPath(s, "bob", swapped)))
			require.NoError(t, os.Symlink(target, agentPath(s, "bob", swapped)))

			err := s.Deliver(context.Background(), newMsg("alice", "bob", "second"))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "symlink")
			for _, sub := range []string{inboxDir, tmpDir} {
				assert.Empty(t, names(t, filepath.Join(outside, sub)), "nothing written through the link")
			}
		})
	}
}
