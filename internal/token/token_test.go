package token_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/token"
)

func write(t *testing.T, name, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), mode))
	require.NoError(t, os.Chmod(p, mode))
	return p
}

func TestRead(t *testing.T) {
	t.Parallel()
	good := strings.Repeat("k", token.MinLen)
	got, err := token.Read(write(t, "ok", "  "+good+"\n", 0o600))
	require.NoError(t, err)
	assert.Equal(t, good, got)

	_, err = token.Read(filepath.Join(t.TempDir(), "missing"))
	assert.ErrorIs(t, err, fs.ErrNotExist)

	_, err = token.Read(write(t, "short", "abc\n", 0o600))
	assert.ErrorIs(t, err, token.ErrTooShort)

	_, err = token.Read(write(t, "big", strings.Repeat("x", 5000), 0o600))
	assert.ErrorContains(t, err, "one token")

	if runtime.GOOS != "windows" {
		_, err = token.Read(write(t, "open", good, 0o644))
		assert.ErrorContains(t, err, "chmod 600")
	}

	target := write(t, "target", good, 0o600)
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(target, link))
	_, err = token.Read(link)
	assert.ErrorContains(t, err, "not a regular file")
}

func TestEqual(t *testing.T) {
	t.Parallel()
	assert.True(t, token.Equal("secret-secret-secret", "secret-secret-secret"))
	assert.False(t, token.Equal("secret-secret-secreT", "secret-secret-secret"))
	assert.False(t, token.Equal("secret", "secret-secret-secret"))
	assert.False(t, token.Equal("", ""), "no token configured matches nothing")
}

func TestBearer(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "abc", token.Bearer("Bearer abc"))
	assert.Equal(t, "abc", token.Bearer("bearer  abc "))
	assert.Empty(t, token.Bearer("Basic abc"))
	assert.Empty(t, token.Bearer("abc"))
}

func TestCheck(t *testing.T) {
	t.Parallel()
	require.NoError(t, token.Check("sixteen-chars-ok"))
	assert.ErrorIs(t, token.Check("short"), token.ErrTooShort)
}
