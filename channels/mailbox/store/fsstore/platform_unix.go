//go:build unix

package fsstore

import (
	"errors"
	"os"
	"syscall"
)

// noFollow makes open refuse a symlink as the last path element.
const noFollow = syscall.O_NOFOLLOW

// checkPlatform reports whether the folder store can run here.
func checkPlatform() error { return nil }

// tryLock takes the exclusive flock on f without waiting, retrying when a
// signal interrupts it. It reports false, with no error, when another open
// file holds the lock.
func tryLock(f *os.File) (bool, error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, syscall.EWOULDBLOCK):
			return false, nil
		case !errors.Is(err, syscall.EINTR):
			return false, err
		}
	}
}
