package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegistryDescriptions(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), registryFile)
	assert.Empty(t, registryDescriptions(path), "no registry")

	require.NoError(t, os.WriteFile(path, []byte(`{"coder": {"description": "writes code"},
		"odd": {"description": 42}, "../x": {"description": "not an agent id"}}`), 0o600))
	assert.Equal(t, map[string]string{"coder": "writes code", "odd": ""}, registryDescriptions(path),
		"an odd card still gives its id; a bad id gives nothing")

	require.NoError(t, os.WriteFile(path, []byte(`{"coder": {}}}`), 0o600))
	assert.Empty(t, registryDescriptions(path), "corrupt")
}

func TestKnownAgents(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, registryFile), []byte(`{"b": {"description": "two\nlines"}}`), 0o600))
	require.NoError(t, os.Mkdir(filepath.Join(root, "a"), 0o700))
	require.NoError(t, os.Mkdir(filepath.Join(root, "_hidden"), 0o700))
	a := &app{root: root, env: Env{Environ: []string{"HOME=" + t.TempDir()}}}
	t.Setenv("HOME", t.TempDir())
	assert.Equal(t, []string{"a", "b\ttwo lines"}, a.knownAgents(), "descriptions on one line")

	bad := &app{conf: filepath.Join(t.TempDir(), "missing.json")}
	assert.Empty(t, bad.knownAgents(), "no settings, no candidates")
}
