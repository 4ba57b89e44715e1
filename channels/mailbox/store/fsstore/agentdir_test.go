//go:build unix

package fsstore

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnsafeAgentFolderRefused: an agent folder (or one of its folders)
// that others can write to, or that another user owns, is refused like
// the root, by the sender and by the receiver, with an error that names
// the folder and says what to do; a folder that is only readable is used.
func TestUnsafeAgentFolderRefused(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		sub   string // "" for the agent folder itself
		mode  os.FileMode
		owner int // 0: keep
		want  string
	}{
		{"agent folder world writable", "", 0o777, 0, "writable by group or others (mode 0777)"},
		{"agent folder group writable", "", 0o770, 0, "writable by group or others (mode 0770)"},
		{"inbox world writable", inboxDir, 0o757, 0, "writable by group or others (mode 0757)"},
		{"agent folder of another user", "", 0o700, 4242, "owned by uid 4242, not by you"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.owner != 0 && os.Geteuid() != 0 {
				t.Skip("giving a folder to another user needs root")
			}
			s, _ := openMsgStore(t)
			dir := filepath.Join(s.Root(), "bob", tt.sub)
			require.NoError(t, os.MkdirAll(dir, 0o700))
			require.NoError(t, os.Chmod(dir, tt.mode))
			if tt.owner != 0 {
				require.NoError(t, os.Chown(dir, tt.owner, tt.owner))
			}
			err := s.Deliver(context.Background(), newMsg("alice", "bob", "x"))
			require.Error(t, err, "deliver")
			assert.Contains(t, err.Error(), dir)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "chmod 700 "+dir, "says what to do")
			_, err = s.OpenInbox(context.Background(), "bob")
			require.Error(t, err, "open inbox")
			assert.Contains(t, err.Error(), dir)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestReadableAgentFolderUsed: nanobot makes folders 0755; others can
// read them but not write, and the store uses them.
func TestReadableAgentFolderUsed(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	dir := filepath.Join(s.Root(), "bob")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, inboxDir), 0o755))
	require.NoError(t, os.Chmod(dir, 0o755))
	require.NoError(t, s.Deliver(context.Background(), newMsg("alice", "bob", "x")))
}

// TestAgentFolderMadeUnsafeLater: a folder the sender checked and that is
// then opened to others is checked again before the next delivery.
func TestAgentFolderMadeUnsafeLater(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	require.NoError(t, s.Deliver(context.Background(), newMsg("alice", "bob", "first")))
	dir := filepath.Join(s.Root(), "bob", inboxDir)
	require.NoError(t, os.Chmod(dir, 0o777))
	err := s.Deliver(context.Background(), newMsg("alice", "bob", "second"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "writable by group or others")
}
