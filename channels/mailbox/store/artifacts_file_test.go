package store_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A file stored with PutFile comes out of FetchArtifact in another
// agent's workspace with its bytes, name and digest; a second fetch uses
// the copy; inline parts need no store; a corrupt artifact never lands.
func TestPutFileFetchArtifact(t *testing.T) {
	ctx := testkit.Ctx(t)
	hub := memstore.NewHub()
	sender, receiver := store.New(hub.Open(memstore.Options{}), nil), store.New(hub.Open(memstore.Options{}), nil)
	src := filepath.Join(t.TempDir(), "q3 report.md")
	require.NoError(t, os.WriteFile(src, []byte("# Q3\nrevenue up"), 0o600))
	a, err := sender.Artifacts()
	require.NoError(t, err)
	part, err := a.PutFile(ctx, src)
	require.NoError(t, err)
	assert.Equal(t, envelope.Part{Type: envelope.PartFile, Path: src, Name: "q3 report.md", MimeType: "text/markdown",
		Size: 15, SHA256: envelope.Digest([]byte("# Q3\nrevenue up")), URI: envelope.ArtifactURI(envelope.Digest([]byte("# Q3\nrevenue up")))}, part)

	ws := t.TempDir()
	got, err := receiver.FetchArtifact(ctx, part, ws)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(ws, part.SHA256[:16], "q3 report.md"), got)
	data, err := os.ReadFile(got)
	require.NoError(t, err)
	assert.Equal(t, "# Q3\nrevenue up", string(data))
	again, err := receiver.FetchArtifact(ctx, part, ws)
	require.NoError(t, err)
	assert.Equal(t, got, again, "the copy is used")

	inline := envelope.InlinePart("../../etc/passwd", "text/plain", []byte("inline"))
	p, err := store.New(memstore.New(memstore.Options{}), nil).FetchArtifact(ctx, inline, ws)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(ws, inline.SHA256[:16], "_.._etc_passwd"), p, "a name is no path")

	_, err = receiver.FetchArtifact(ctx, envelope.FilePart("/srv/x"), ws)
	assert.ErrorContains(t, err, "names only a path on its sender's machine")

	bad := []byte("tampered")
	other := envelope.Part{Type: envelope.PartFile, Name: "b.bin", Size: int64(len(bad)), SHA256: envelope.Digest([]byte("original"))}
	_, err = a.Put(ctx, store.Artifact{Digest: other.SHA256, Size: 8}, bytes.NewReader([]byte("original")))
	require.NoError(t, err)
	require.True(t, hub.Corrupt(other.SHA256, bad))
	_, err = receiver.FetchArtifact(ctx, other, ws)
	require.ErrorIs(t, err, store.ErrArtifactCorrupt)
	assert.Contains(t, err.Error(), "is corrupt")
	entries, err := os.ReadDir(filepath.Join(ws, other.SHA256[:16]))
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing of it is left in the workspace")
}
