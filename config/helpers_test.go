package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// writeConfig writes content to a config.json in a fresh folder and
// returns its path.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// errLines returns the lines of err's message, nil for a nil error.
func errLines(err error) []string {
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

// bare returns c without its Report, to compare with a Config made by hand.
func bare(c *Config) *Config {
	if c != nil {
		c.Report = nil
	}
	return c
}
