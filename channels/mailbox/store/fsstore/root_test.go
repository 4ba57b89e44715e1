package fsstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

func TestOpenRequiresRoot(t *testing.T) {
	t.Parallel()
	_, err := Open(Options{})
	require.ErrorContains(t, err, "Root is required")
}

func TestOpenCreatesRootPrivate(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "a", "b", "mailboxes")
	s, err := Open(Options{Root: root})
	require.NoError(t, err)
	defer s.Close()
	fi, err := os.Stat(root)
	require.NoError(t, err)
	assert.True(t, fi.IsDir())
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
}

func TestOpenResolvesSymlinkedRoot(t *testing.T) {
	t.Parallel()
	real := filepath.Join(t.TempDir(), "real")
	require.NoError(t, os.Mkdir(real, 0o700))
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(real, link))
	s, err := Open(Options{Root: link})
	require.NoError(t, err)
	defer s.Close()
	want, err := filepath.EvalSymlinks(real)
	require.NoError(t, err)
	assert.Equal(t, want, s.Root())
}

func TestOpenRefusesUnsafeRoot(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		mode os.FileMode
	}{
		{"world writable", 0o777},
		{"group writable", 0o770},
		{"other writable only", 0o702},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "mb")
			require.NoError(t, os.Mkdir(root, 0o700))
			require.NoError(t, os.Chmod(root, tt.mode))
			_, err := Open(Options{Root: root})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "writable by group or others")
			assert.Contains(t, err.Error(), "chmod 700 "+root)
		})
	}
}

func TestOpenAcceptsReadableRoot(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mb")
	require.NoError(t, os.Mkdir(root, 0o700))
	require.NoError(t, os.Chmod(root, 0o755))
	s, err := Open(Options{Root: root})
	require.NoError(t, err)
	s.Close()
}

func TestOpenRefusesRootOwnedByAnother(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the folder to another user")
	}
	root := filepath.Join(t.TempDir(), "mb")
	require.NoError(t, os.Mkdir(root, 0o700))
	require.NoError(t, os.Chown(root, 4242, 4242))
	_, err := Open(Options{Root: root})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "owned by uid 4242")
	assert.Contains(t, err.Error(), "chown")
}

func TestOpenRefusesFileAsRoot(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(root, nil, 0o600))
	_, err := Open(Options{Root: root})
	require.Error(t, err)
}

func TestStoreCloseEndsEverything(t *testing.T) {
	t.Parallel()
	s, _ := openMsgStore(t)
	in := openTestInbox(t, s, "bob")
	blocked := make(chan error, 1)
	go func() {
		_, err := in.Next(context.Background())
		blocked <- err
	}()
	require.NoError(t, s.Close())
	require.ErrorIs(t, <-blocked, driver.ErrClosed)
	require.NoError(t, s.Close(), "Close is idempotent")

	assert.ErrorIs(t, s.Deliver(context.Background(), newMsg("a", "bob", "x")), driver.ErrClosed)
	_, err := s.OpenInbox(context.Background(), "bob")
	assert.ErrorIs(t, err, driver.ErrClosed)
	_, err = s.Agents()
	assert.ErrorIs(t, err, driver.ErrClosed)
	_, err = s.Depth("bob")
	assert.ErrorIs(t, err, driver.ErrClosed)
	err = s.Pending(context.Background(), "bob", func(string, *envelope.Message, error) bool { return true })
	assert.ErrorIs(t, err, driver.ErrClosed)
	assert.True(t, errors.Is(s.Watch(context.Background(), "", driver.WatchFuncs{}), driver.ErrClosed))
}
