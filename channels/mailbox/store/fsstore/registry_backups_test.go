package fsstore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// TestCorruptRegistryBackupsBounded: a registry torn again and again (by
// nanobot's unlocked writer) leaves only the newest few copies, the
// newest always among them.
func TestCorruptRegistryBackupsBounded(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	for i := range 23 {
		writeRegistryRaw(t, s, []byte(fmt.Sprintf(`{"a": {"agent_id": "a"}, "round%d": {"agen`, i+1)))
		_, err := s.UpdateCard(context.Background(), "gopher", func(*envelope.Card) {})
		require.NoError(t, err)
	}
	backups, err := filepath.Glob(filepath.Join(s.Root(), registryName+".corrupt-*"))
	require.NoError(t, err)
	assert.Len(t, backups, 3, "%v", backups)
	names, err := CorruptRegistryCopies(s.Root())
	require.NoError(t, err)
	require.NotEmpty(t, names)
	data, err := os.ReadFile(filepath.Join(s.Root(), names[0]))
	require.NoError(t, err)
	assert.Contains(t, string(data), "round23", "the newest copy is kept and listed first")
}

// TestPruneCorruptBackupsOrder: with equal modification times the newest
// copies are those of the latest second, then of the highest counter;
// names that are not copies are left alone.
func TestPruneCorruptBackupsOrder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	names := []string{"_registry.json.corrupt-100", "_registry.json.corrupt-100-2", "_registry.json.corrupt-100-10",
		"_registry.json.corrupt-99-50", "_registry.json.corrupt-x", "_registry.json"}
	for _, n := range names {
		require.NoError(t, os.WriteFile(filepath.Join(root, n), nil, 0o600))
		require.NoError(t, os.Chtimes(filepath.Join(root, n), registryTestNow, registryTestNow))
	}
	removed, err := PruneCorruptRegistryCopies(root, 2)
	require.NoError(t, err)
	assert.Equal(t, 2, removed)
	left, err := filepath.Glob(filepath.Join(root, "_registry.json*"))
	require.NoError(t, err)
	for i := range left {
		left[i] = filepath.Base(left[i])
	}
	assert.ElementsMatch(t, []string{"_registry.json", "_registry.json.corrupt-100-2", "_registry.json.corrupt-100-10",
		"_registry.json.corrupt-x"}, left)
}
