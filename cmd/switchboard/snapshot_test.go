package main_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// snapshot describes every entry under dir, dir itself included: type,
// permissions, size, modification time and, for files, a digest of the
// content. Two equal snapshots mean nothing was created, removed, moved,
// changed or chmod-ed (a folder's time changes when an entry is added to
// it or removed from it, even if the entry is gone again). A missing dir
// gives nil.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		desc := fmt.Sprintf("%s %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			desc += fmt.Sprintf(" %x", sha256.Sum256(data))
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel] = desc
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		if _, statErr := os.Lstat(dir); errors.Is(statErr, fs.ErrNotExist) {
			return nil
		}
	}
	require.NoError(t, err)
	return out
}

// requireUnchanged fails when the tree under dir differs from before.
func requireUnchanged(t *testing.T, before map[string]string, dir, what string) {
	t.Helper()
	require.Equal(t, before, snapshot(t, dir), "%s wrote to %s", what, dir)
}
