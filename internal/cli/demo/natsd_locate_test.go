package demo

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exeName is switchboard-natsd's file name on this platform.
func exeName() string {
	if runtime.GOOS == "windows" {
		return natsdName + ".exe"
	}
	return natsdName
}

// writeExe writes an executable file named name into dir.
func writeExe(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755))
	return path
}

// Beside the running program first, then on PATH, else errNoNATSD; a
// folder of that name does not count.
func TestLocateNATSD(t *testing.T) {
	here, onPath := t.TempDir(), t.TempDir()
	self := filepath.Join(here, "switchboard")
	t.Setenv("PATH", onPath)

	_, _, err := locateNATSD(t.Context(), self, false)
	require.ErrorIs(t, err, errNoNATSD)
	assert.Equal(t, "switchboard-natsd not found beside switchboard nor on PATH: install it with go install ./cmd/... in a clone of the repository, or go install github.com/switchboard-dev/switchboard/cmd/...@latest", err.Error())

	require.NoError(t, os.Mkdir(filepath.Join(here, exeName()), 0o755))
	_, _, err = locateNATSD(t.Context(), self, false)
	require.ErrorIs(t, err, errNoNATSD, "a folder is not the program")

	want := writeExe(t, onPath, exeName())
	got, cleanup, err := locateNATSD(t.Context(), self, false)
	require.NoError(t, err)
	cleanup()
	assert.Equal(t, want, got, "on PATH")
	assert.FileExists(t, want, "cleanup leaves an installed program alone")

	require.NoError(t, os.Remove(filepath.Join(here, exeName())))
	want = writeExe(t, here, exeName())
	got, _, err = locateNATSD(t.Context(), self, true)
	require.NoError(t, err)
	assert.Equal(t, want, got, "beside wins over PATH, and over a build")
}

// A program built from this module's source builds the server from the
// same source when it is nowhere else, into a folder that cleanup removes.
func TestLocateNATSDBuildsFromSource(t *testing.T) {
	if testing.Short() {
		t.Skip("builds switchboard-natsd")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	if p, err := exec.LookPath(exeName()); err == nil {
		t.Skipf("%s is on PATH", p)
	}
	self := filepath.Join(t.TempDir(), "switchboard")
	path, cleanup, err := locateNATSD(t.Context(), self, true)
	require.NoError(t, err)
	assert.FileExists(t, path)
	cleanup()
	assert.NoDirExists(t, filepath.Dir(path))
	assert.True(t, fromThisModule(), "a test of this module is built from its source")
}
