//go:build unix

package cli

import (
	"io/fs"
	"syscall"
)

// noFollow makes open refuse a symlink as the last path element.
const noFollow = syscall.O_NOFOLLOW

// ownerOf returns the uid that owns fi's file.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
