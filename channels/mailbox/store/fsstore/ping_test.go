package fsstore_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Ping answers while the root is a readable folder, and says why not once
// it is gone, unreadable or replaced.
func TestPingFollowsTheRoot(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "mailboxes")
	st, err := fsstore.Open(fsstore.Options{Root: root, NoSync: true})
	require.NoError(t, err)
	require.NoError(t, st.Ping(testkit.Ctx(t)))

	require.NoError(t, os.Chmod(root, 0))
	if os.Geteuid() != 0 { // root reads any folder
		require.ErrorContains(t, st.Ping(testkit.Ctx(t)), "permission denied")
	}
	require.NoError(t, os.Chmod(root, 0o700))

	require.NoError(t, os.RemoveAll(root))
	require.ErrorContains(t, st.Ping(testkit.Ctx(t)), "mailbox root")
	require.NoError(t, os.WriteFile(root, nil, 0o600))
	require.ErrorContains(t, st.Ping(testkit.Ctx(t)), "no longer a folder")

	require.NoError(t, st.Close())
	require.Error(t, st.Ping(testkit.Ctx(t)), "a closed store")
}
