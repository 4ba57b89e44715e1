//go:build unix

package fsstore

import (
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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

// releaseLock gives up the flock on f and closes it. The unlock comes
// first: a child process that another goroutine is starting at this
// moment holds a copy of the descriptor until its exec closes it, and
// with it the lock, which closing f alone would leave held.
func releaseLock(f *os.File) error {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) // closing releases it too, but not for a copy
	return f.Close()
}

// touch sets the modification (and access) time of the file at path to
// t, without following a symlink there.
func touch(path string, t time.Time) error {
	ts := unix.NsecToTimespec(t.UnixNano())
	return unix.UtimesNanoAt(unix.AT_FDCWD, path, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW)
}
