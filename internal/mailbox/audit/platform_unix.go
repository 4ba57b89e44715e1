//go:build unix

package audit

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// noFollow makes open refuse a symlink as the last path element.
const noFollow = syscall.O_NOFOLLOW

// checkPlatform reports whether a Writer can run here.
func checkPlatform() error { return nil }

// lockExclusive takes the exclusive flock on f, waiting for it.
func lockExclusive(f *os.File) error { return flock(f, syscall.LOCK_EX) }

// unlock lets go of the flock on f.
func unlock(f *os.File) error { return flock(f, syscall.LOCK_UN) }

// flock applies op to f, retrying when a signal interrupts the wait.
func flock(f *os.File, op int) error {
	for {
		err := syscall.Flock(int(f.Fd()), op)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// inode returns the inode number of the file fi describes (0: unknown).
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}
