package fsstore_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// A put killed midway (SIGKILL) leaves its staging file in
// _artifacts/tmp/: the next put removes it once it is an hour old, and
// leaves a younger one (a put under way) alone.
func TestPutRemovesWhatKilledPutsLeft(t *testing.T) {
	root := t.TempDir()
	s, err := fsstore.Open(fsstore.Options{Root: root, NoSync: true})
	require.NoError(t, err)
	defer s.Close()
	put := func(data []byte) {
		_, err := s.PutArtifact(context.Background(), driver.ArtifactInfo{Digest: envelope.Digest(data), Size: int64(len(data))},
			bytes.NewReader(data))
		require.NoError(t, err)
	}
	put([]byte("first"))
	tmp := filepath.Join(root, "_artifacts", "tmp")
	old, fresh := filepath.Join(tmp, ".stage-killed"), filepath.Join(tmp, ".stage-running")
	require.NoError(t, os.WriteFile(old, []byte("half a file"), 0o600))
	require.NoError(t, os.WriteFile(fresh, []byte("a file coming"), 0o600))
	long := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(old, long, long))

	put([]byte("second"))
	assert.NoFileExists(t, old, "the leftover of a killed put")
	assert.FileExists(t, fresh, "a put under way")
}
