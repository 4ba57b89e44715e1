package companion

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exeName is switchboard-full's file name on this platform.
func exeName() string {
	if runtime.GOOS == "windows" {
		return Name + ".exe"
	}
	return Name
}

// writeExe writes an executable file named name into dir.
func writeExe(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755))
	return path
}

// Beside the running program first, then on PATH, else ErrNotFound; a
// folder of that name does not count.
func TestLocate(t *testing.T) {
	here, onPath := t.TempDir(), t.TempDir()
	self := filepath.Join(here, "switchboard")
	t.Setenv("PATH", onPath)

	_, err := Locate(t.Context(), self)
	require.ErrorIs(t, err, ErrNotFound)
	assert.Equal(t, "switchboard-full not found beside switchboard nor on PATH: install switchboard with its companions with go install ./cmd/... in a clone of the repository, or go install github.com/switchboard-dev/switchboard/cmd/...@latest", err.Error())
	_, err = LocateProgram(t.Context(), self, NATSD)
	require.ErrorIs(t, err, ErrNotFound)

	require.NoError(t, os.Mkdir(filepath.Join(here, exeName()), 0o755))
	_, err = Locate(t.Context(), self)
	require.ErrorIs(t, err, ErrNotFound, "a folder is not the program")

	want := writeExe(t, onPath, exeName())
	got, err := Locate(t.Context(), self)
	require.NoError(t, err)
	assert.Equal(t, want, got, "on PATH")

	require.NoError(t, os.Remove(filepath.Join(here, exeName())))
	want = writeExe(t, here, exeName())
	got, err = Locate(t.Context(), self)
	require.NoError(t, err)
	assert.Equal(t, want, got, "beside wins over PATH")
}

// Only a program in go run's temporary folder builds switchboard-full.
func TestBuiltByGoRun(t *testing.T) {
	t.Parallel()
	assert.False(t, builtByGoRun(filepath.Join(t.TempDir(), "switchboard")), "not in a go-build folder")
	assert.False(t, builtByGoRun("/usr/local/bin/switchboard"))
}
