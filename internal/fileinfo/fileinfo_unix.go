//go:build unix

package fileinfo

import (
	"io/fs"
	"syscall"
)

// NoFollow makes open refuse a symlink as the last path element.
const NoFollow = syscall.O_NOFOLLOW

// Owner returns the uid that owns the file fi describes, if the system
// says.
func Owner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// Links returns how many hard links the file fi describes has (1 when the
// system does not say).
func Links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
