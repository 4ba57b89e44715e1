//go:build linux || openbsd || dragonfly || solaris

package cli

import (
	"io/fs"
	"syscall"
	"time"
)

// changeTime is when the file's inode last changed (a rename sets it),
// else its modification time.
func changeTime(fi fs.FileInfo) time.Time {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return time.Unix(st.Ctim.Sec, st.Ctim.Nsec)
	}
	return fi.ModTime()
}
