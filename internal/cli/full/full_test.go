package full

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/config"
)

// Every extra is filled: a nil one would fail only when its command runs.
func TestExtrasComplete(t *testing.T) {
	t.Parallel()
	x := Extras()
	assert.NotNil(t, x.RunHost)
	assert.NotNil(t, x.StartTracing)
	assert.NotNil(t, x.CheckProvider)
	assert.NotNil(t, x.ServeMCP)
	assert.NotNil(t, x.Demo)
}

// checkProvider builds the provider as run would: the default (scripted)
// builds, an unknown one is refused.
func TestCheckProvider(t *testing.T) {
	t.Parallel()
	load := func(content string) *config.Config {
		path := filepath.Join(t.TempDir(), "config.json")
		require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
		cfg, err := config.Load(config.LoadOptions{Path: path, Lenient: []string{"*"}})
		require.NoError(t, err)
		return cfg
	}
	require.NoError(t, checkProvider(load(`{}`), nil))
	assert.Error(t, checkProvider(load(`{"agents": {"defaults": {"provider": "nosuchprovider"}}}`), nil))
}
