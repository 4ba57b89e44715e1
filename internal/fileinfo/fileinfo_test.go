package fileinfo_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/fileinfo"
)

func TestOwnerAndLinks(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no owners or link counts on windows")
	}
	path := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(path, []byte("x"), 0o600))
	require.NoError(t, os.Link(path, path+".2"))
	fi, err := os.Lstat(path)
	require.NoError(t, err)
	uid, ok := fileinfo.Owner(fi)
	assert.True(t, ok)
	assert.Equal(t, os.Getuid(), uid)
	assert.Equal(t, uint64(2), fileinfo.Links(fi))
	_, err = os.OpenFile(filepath.Join(t.TempDir(), "missing"), os.O_RDONLY|fileinfo.NoFollow, 0)
	assert.Error(t, err)
}
