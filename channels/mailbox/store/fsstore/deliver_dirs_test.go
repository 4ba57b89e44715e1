package fsstore

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// After the first send the recipient's folders are not checked again, so
// a folder removed later must be noticed by the next send and recreated.
func TestDeliverRecreatesRemovedFolders(t *testing.T) {
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
