//go:build unix

package config

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadLimit bounds how long a test waits for Load; it never takes long
// unless it blocks (the bug these tests catch).
const loadLimit = 20 * time.Second

// loadAsync runs Load in a goroutine and returns its error, failing the
// test if Load blocks.
func loadAsync(t *testing.T, path string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := Load(LoadOptions{Path: path})
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(loadLimit):
		t.Fatalf("Load(%s) still blocked after %s", path, loadLimit)
		return nil
	}
}

// TestLoadRefusesFIFO: a named pipe is an error at once, not a read that
// waits for a writer for ever.
func TestLoadRefusesFIFO(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	err := loadAsync(t, path)
	assert.EqualError(t, err, "config: "+path+" is a named pipe, not a regular file; name a JSON file (--config FILE)")
}

// TestLoadRefusesDevice: /dev/zero is refused before a byte is read.
func TestLoadRefusesDevice(t *testing.T) {
	t.Parallel()
	err := loadAsync(t, "/dev/zero")
	assert.EqualError(t, err, "config: /dev/zero is a device, not a regular file; name a JSON file (--config FILE)")
}
