package fsstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSearchRegistryAgreesWithFindEntryAt looks up every agent of a
// registry several chunks long, and some that are not there, both by
// streaming the file and in the file read whole: the answers must be the
// same, card for card and offset for offset.
func TestSearchRegistryAgreesWithFindEntryAt(t *testing.T) {
	t.Parallel()
	entries := map[string]json.RawMessage{}
	var ids []string
	for i := range 1500 {
		id := fmt.Sprintf("agent-%04d", i)
		ids = append(ids, id)
		entries[id] = json.RawMessage(fmt.Sprintf(`{"agent_id":%q,"description":%q,"capabilities":["a","b"],"status":"idle"}`,
			id, strings.Repeat("d", i%300)))
	}
	data, err := encodeRegistry(entries)
	require.NoError(t, err)
	require.Greater(t, len(data), 3*searchChunk, "the registry must span several chunks")
	path := filepath.Join(t.TempDir(), registryName)
	require.NoError(t, os.WriteFile(path, data, 0o600))

	for _, id := range append(ids, "agent-9999", "agent-00", "gent-0001") {
		wantRaw, wantAt, wantFound := findEntryAt(data, id)
		raw, at, info, found, err := searchRegistry(path, id)
		require.NoError(t, err, id)
		require.NotNil(t, info, id)
		require.Equal(t, wantFound, found, id)
		if found == entryFound {
			assert.Equal(t, int64(wantAt), at, id)
			assert.JSONEq(t, string(wantRaw), string(raw), id)
		}
	}
}

// TestFindKeyAcrossChunkEnds puts the key at every offset of a text read
// through buffers barely longer than the key, so that it is cut by a
// chunk's end in every way there is.
func TestFindKeyAcrossChunkEnds(t *testing.T) {
	t.Parallel()
	key := []byte("\n  \"coder\": ")
	for size := len(key) + 1; size < len(key)+9; size++ {
		for at := len(layoutPrefix); at < 60; at++ {
			text := []byte(layoutPrefix + strings.Repeat("x", 80))
			text = append(text[:at:at], append(append([]byte{}, key...), text[at:]...)...)
			got, count, err := findKey(bytes.NewReader(text), key, make([]byte, size))
			require.NoError(t, err)
			require.Equal(t, 1, count, "buffer %d, key at %d", size, at)
			require.Equal(t, int64(at), got, "buffer %d", size)

			twice := append(append([]byte{}, text...), key...)
			_, count, err = findKey(bytes.NewReader(twice), key, make([]byte, size))
			require.NoError(t, err)
			require.Equal(t, 2, count, "buffer %d, key at %d and at the end", size, at)
		}
	}
}

// TestSearchRegistryLeavesTheHardCasesToTheParser: a key twice, a file
// not laid out with two spaces, an entry that is not JSON, an empty or
// missing file are not answered by the search (entryUnknown), and a file
// that is not a regular file or is a symlink is refused as
// readRegistryFile refuses it.
func TestSearchRegistryLeavesTheHardCasesToTheParser(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	for name, text := range map[string]string{
		"twice":   "{\n  \"coder\": {\"a\": 1},\n  \"coder\": {\"a\": 2}\n}\n",
		"compact": `{"coder":{"agent_id":"coder"}}`,
		"torn":    "{\n  \"coder\": {\"agent_id\": \"co",
		"empty":   "",
	} {
		_, _, _, found, err := searchRegistry(write(name, text), "coder")
		require.NoError(t, err, name)
		assert.Equal(t, entryUnknown, found, name)
	}
	_, _, info, found, err := searchRegistry(filepath.Join(dir, "missing"), "coder")
	require.NoError(t, err)
	assert.Nil(t, info)
	assert.Equal(t, entryUnknown, found)

	_, _, _, found, err = searchRegistry(write("other", "{\n  \"tester\": {}\n}\n"), "coder")
	require.NoError(t, err)
	assert.Equal(t, entryAbsent, found)

	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(write("target", "{\n  \"coder\": {}\n}\n"), link))
	_, _, _, _, err = searchRegistry(link, "coder")
	require.ErrorContains(t, err, "symlink")
	_, _, _, _, err = searchRegistry(dir, "coder")
	require.ErrorContains(t, err, "not a regular file")
}
