package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadRefusesOversizedFile: the file is read up to MaxFileBytes and
// no further, with an error naming the file and the cap.
func TestLoadRefusesOversizedFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.json")
	// Valid JSON, padded past the cap with white space.
	data := "{}" + strings.Repeat(" ", 4<<20)
	require.NoError(t, os.WriteFile(path, []byte(data), 0o600))
	_, err := Load(LoadOptions{Path: path})
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "4 MiB")
}

// TestLoadRefusesDirectory: a folder is named as a folder, with what to do.
func TestLoadRefusesDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_, err := Load(LoadOptions{Path: dir})
	assert.EqualError(t, err, "config: "+dir+" is a directory, not a regular file; name a JSON file (--config FILE)")
}
