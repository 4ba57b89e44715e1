//go:build unix

package fsstore

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"golang.org/x/sys/unix"
)

// noFollow makes open refuse a symlink as the last path element.
const noFollow = syscall.O_NOFOLLOW

// quietMarks: a folder's modification time changes with every entry added
// to it, so a scan that found it empty vouches for it until that time
// moves (see quietMark).
const quietMarks = true

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

// renameCheckFirst is renameNoReplace in two steps, for systems and file
// systems without an atomic no-replace rename: an fstatat of the target
// (no symlink followed), then renameat. Only the holder of an agent's
// inbox lock moves files into its claimed/, processed/ and rejected/, so
// nothing can take the name in between.
func renameCheckFirst(olddirfd int, oldname string, newdirfd int, newname string) error {
	var st unix.Stat_t
	err := unix.Fstatat(newdirfd, newname, &st, unix.AT_SYMLINK_NOFOLLOW)
	if err == nil {
		return unix.EEXIST
	}
	if err != unix.ENOENT {
		return err
	}
	return unix.Renameat(olddirfd, oldname, newdirfd, newname)
}

// renamePaths is renameNoReplace by path, with the error os.Rename would
// give.
func renamePaths(oldpath, newpath string) error {
	if err := renameNoReplace(unix.AT_FDCWD, oldpath, unix.AT_FDCWD, newpath); err != nil {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: err}
	}
	return nil
}

// heldDir is a folder held open, so that moves, reads and fsyncs name
// their files relative to it: no path walk per call, and no symlink
// swapped in for a folder in between is followed.
type heldDir struct {
	path string
	fd   int
}

// openHeldDir opens the folder at path (never through a symlink).
func openHeldDir(path string) (*heldDir, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &heldDir{path: path, fd: fd}, nil
}

// close lets the folder go.
func (d *heldDir) close() error { return unix.Close(d.fd) }

// syncNow fsyncs the folder, making the moves into it durable.
func (d *heldDir) syncNow() error {
	for {
		err := unix.Fsync(d.fd)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "fsync", Path: d.path, Err: err}
		}
		return nil
	}
}

// stale reports whether the folder at d.path is no longer the one held
// (removed, or replaced), so that it must be opened again.
func (d *heldDir) stale() bool {
	var held, now unix.Stat_t
	if unix.Fstat(d.fd, &held) != nil || unix.Lstat(d.path, &now) != nil {
		return true
	}
	return held.Dev != now.Dev || held.Ino != now.Ino
}

// moveAt renames src/name to dst/target unless target exists (an error
// wrapping fs.ErrExist).
func moveAt(src *heldDir, name string, dst *heldDir, target string) error {
	if err := renameNoReplace(src.fd, name, dst.fd, target); err != nil {
		return &os.LinkError{Op: "rename", Old: filepath.Join(src.path, name), New: filepath.Join(dst.path, target), Err: err}
	}
	return nil
}

// readHeld reads and decodes the message file dir/name like readMessage,
// relative to the held folder and without os.File: openat (no symlink
// followed, no blocking on a FIFO), one fstat, the reads, close. links is
// the file's link count; when it is more than one the file is not read
// (msg and err nil), for the caller to check the links first (extraLinks).
func readHeld(dir *heldDir, name string, limit int64) (msg *envelope.Message, links uint64, err error) {
	path := filepath.Join(dir.path, name)
	fd, err := openAt(dir.fd, name)
	switch {
	case err == unix.ENOENT:
		return nil, 0, &os.PathError{Op: "open", Path: path, Err: err}
	case err == unix.ELOOP:
		return nil, 0, errors.New("not a regular file (symlink)")
	case err != nil:
		return nil, 0, fmt.Errorf("unreadable: %w", &os.PathError{Op: "open", Path: path, Err: err})
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, 0, fmt.Errorf("unreadable: %w", &os.PathError{Op: "fstat", Path: path, Err: err})
	}
	if mode := fileMode(uint32(st.Mode)); !mode.IsRegular() {
		return nil, 0, fmt.Errorf("not a regular file (%s)", typeName(mode))
	}
	if links = uint64(st.Nlink); links > 1 {
		return nil, links, nil
	}
	if st.Size > limit {
		return nil, links, fmt.Errorf("oversized: %d bytes > %d", st.Size, limit)
	}
	// The read stops at the size fstat gave: a message file is whole
	// before it is linked into inbox/, so no read for the end of the file
	// is spent. A file that came out shorter is read to its end; one that
	// grew since the fstat is read only as far as it was then.
	bp := readBuf(int(st.Size))
	defer putReadBuf(bp)
	buf := (*bp)[:st.Size]
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, links, fmt.Errorf("unreadable: %w", &os.PathError{Op: "read", Path: path, Err: err})
		}
		if m == 0 {
			break
		}
		n += m
	}
	msg, err = envelope.DecodeBytes(buf[:n])
	return msg, links, err
}

// readBufs holds the buffers readHeld reads files into: the decoder
// copies what it keeps, so a buffer serves the next file.
var readBufs sync.Pool

// maxPooledRead is the largest buffer readBufs keeps.
const maxPooledRead = 64 << 10

// readBuf returns a buffer of at least size bytes, for readBufs.Put.
func readBuf(size int) *[]byte {
	if bp, ok := readBufs.Get().(*[]byte); ok && cap(*bp) >= size {
		return bp
	}
	b := make([]byte, max(size, 4<<10))
	return &b
}

// putReadBuf gives bp back to readBufs, unless it is too large to keep.
func putReadBuf(bp *[]byte) {
	if cap(*bp) <= maxPooledRead {
		readBufs.Put(bp)
	}
}

// openAt opens dir/name for reading, retrying when a signal interrupts.
func openAt(dirfd int, name string) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// fileMode converts a stat mode's type bits to an fs.FileMode.
func fileMode(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

// maxSockPath is the longest socket path every unix takes (sun_path is
// 104 bytes on the BSDs and macOS, 108 on linux, with the NUL).
const maxSockPath = 103

// shareAddr returns the address of root's socket and what to call once
// it was used. A path too long for a socket address is reached on linux
// through the root's open folder, /proc/self/fd/N/_watch.sock; elsewhere
// the root is not shared (errNoShare).
func shareAddr(root string) (string, func(), error) {
	path := filepath.Join(root, watchSockName)
	if len(path) <= maxSockPath {
		return path, func() {}, nil
	}
	if runtime.GOOS != "linux" {
		return "", nil, fmt.Errorf("%w: the socket path %s is too long", errNoShare, path)
	}
	fd, err := syscall.Open(root, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, err
	}
	return fmt.Sprintf("/proc/self/fd/%d/%s", fd, watchSockName), func() { syscall.Close(fd) }, nil
}

// listenShare listens on root's socket. The listener does not remove the
// socket when closed (its address may be a /proc path that no longer
// names the root): shareServer.stop does.
func listenShare(root string) (*net.UnixListener, error) {
	addr, done, err := shareAddr(root)
	if err != nil {
		return nil, err
	}
	defer done()
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	if err != nil {
		return nil, err
	}
	ln.SetUnlinkOnClose(false)
	return ln, nil
}

// dialShareConn connects to root's socket.
func dialShareConn(root string) (net.Conn, error) {
	addr, done, err := shareAddr(root)
	if err != nil {
		return nil, err
	}
	defer done()
	d := net.Dialer{Timeout: time.Second}
	return d.Dial("unix", addr)
}
