//go:build unix

package cli

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// mkfifo makes a named pipe at path.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, syscall.Mkfifo(path, 0o600))
}
