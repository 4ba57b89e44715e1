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
// registry_queue.go). A file system without O_TMPFILE, or a system
// without /proc to link the file in through, gets createNewRenamed.
func createNew(dir, name string, data []byte) error {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o600)
	switch err {
	case nil:
	case unix.EOPNOTSUPP, unix.EISDIR, unix.EINVAL:
		return createNewRenamed(dir, name, data)
	default:
		return &os.PathError{Op: "create", Path: filepath.Join(dir, name), Err: err}
	}
	defer unix.Close(fd)
	for rest := data; len(rest) > 0; {
		n, err := unix.Write(fd, rest)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "write", Path: filepath.Join(dir, name), Err: err}
		}
		rest = rest[n:]
	}
	path := filepath.Join(dir, name)
	err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, path, unix.AT_SYMLINK_FOLLOW)
	if err == unix.ENOENT && !procFD() {
		return createNewRenamed(dir, name, data)
	}
	if err != nil {
		return &os.LinkError{Op: "link", Old: "(new file)", New: path, Err: err}
	}
	return nil
}

// procFD reports whether /proc/self/fd is there to link an unnamed file
// in through.
func procFD() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil
}
