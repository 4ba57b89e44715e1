//go:build unix

package fsstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

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
