package fsstore

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestMain runs only TestOpenUnsupportedPlatform on windows: Open refuses
// there, so every other test would fail at its first step.
func TestMain(m *testing.M) { testkit.RunOnly(m, "^TestOpenUnsupportedPlatform$") }

func TestOpenUnsupportedPlatform(t *testing.T) {
	root := t.TempDir()
	_, err := Open(Options{Root: root})
	require.ErrorIs(t, err, ErrUnsupportedPlatform)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	require.Empty(t, entries, "Open touched nothing")
}
