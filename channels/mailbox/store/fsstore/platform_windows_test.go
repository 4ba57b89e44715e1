package fsstore

import (
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMain runs only TestOpenUnsupportedPlatform on windows: Open refuses
// there, so every other test would fail at its first step.
func TestMain(m *testing.M) {
	flag.Parse()
	_ = flag.Set("test.run", "^TestOpenUnsupportedPlatform$")
	os.Exit(m.Run())
}

func TestOpenUnsupportedPlatform(t *testing.T) {
	root := t.TempDir()
	_, err := Open(Options{Root: root})
	require.ErrorIs(t, err, ErrUnsupportedPlatform)
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	require.Empty(t, entries, "Open touched nothing")
}
