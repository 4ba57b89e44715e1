package fsstore

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// createNew writes data to a new file name in dir (mode 0600), whole or
// not at all; a name that exists fails with an error wrapping
// fs.ErrExist. The file is made without a name (O_TMPFILE), written, and
// linked in: one change of the folder, where a temp file renamed in is
// two, each holding the folder's lock. A thousand agents queueing their
// cards in one folder at once wait for each other's changes of it (see
// registry_queue.go). A file system without O_TMPFILE (NFS, FUSE, old
// kernels), or a link refused (no /proc, a security module), gets
// createNewRenamed.
func createNew(dir, name string, data []byte) error {
	return createNewVia(dir, name, data, unix.O_TMPFILE, "/proc/self/fd/")
}

// createNewVia is createNew with the flag that makes the file without a
// name and the folder its descriptors can be linked in from by path, so
// that tests can take each fallback.
func createNewVia(dir, name string, data []byte, tmpfileFlag int, fdLinks string) error {
	path := filepath.Join(dir, name)
	fd, err := retryEINTR(func() (int, error) {
		return unix.Open(dir, tmpfileFlag|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	})
	switch err {
	case nil:
	case unix.EOPNOTSUPP, unix.EISDIR, unix.EINVAL:
		return createNewRenamed(dir, name, data)
	default:
		return &os.PathError{Op: "create", Path: path, Err: err}
	}
	defer unix.Close(fd)
	for rest := data; len(rest) > 0; {
		n, err := unix.Write(fd, rest)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "write", Path: path, Err: err}
		}
		rest = rest[n:]
	}
	_, err = retryEINTR(func() (int, error) {
		return 0, unix.Linkat(unix.AT_FDCWD, fdLinks+strconv.Itoa(fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	})
	switch err {
	case nil:
		return nil
	case unix.EEXIST:
		return &os.LinkError{Op: "link", Old: "(new file)", New: path, Err: err}
	}
	return createNewRenamed(dir, name, data) // it says what is wrong with dir, if anything
}

// retryEINTR calls f again while it is interrupted by a signal.
func retryEINTR(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != unix.EINTR {
			return n, err
		}
	}
}
