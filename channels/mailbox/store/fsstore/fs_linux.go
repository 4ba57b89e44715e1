package fsstore

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"path/filepath"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// direntBufs holds the buffers eachDirent reads folders into: an idle
// agent lists its folders at every rescan, and a fresh 32 KiB each time
// was most of what it allocated between two garbage collections.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// eachDirent calls fn with the name and kind of each entry of the folder
// dir (not "." and ".."), read in batches straight from the kernel: no
// allocation per entry. name is valid only during the call. An entry
// whose kind the file system does not report is looked at with lstat.
func eachDirent(dir string, fn func(name []byte, kind direntKind)) error {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	defer syscall.Close(fd)
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "readdirent", Path: dir, Err: err}
		}
		if n <= 0 {
			return nil
		}
		for b := buf[:n]; len(b) >= 19; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return &fs.PathError{Op: "readdirent", Path: dir, Err: syscall.EIO}
			}
			ino, typ, name := binary.NativeEndian.Uint64(b[:8]), b[18], b[19:reclen]
			b = b[reclen:]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			if ino == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			fn(name, direntKindOf(dir, name, typ))
		}
	}
}

// direntKindOf returns the kind of entry name of dir from its d_type,
// or from lstat when the file system gave none.
func direntKindOf(dir string, name []byte, typ uint8) direntKind {
	switch typ {
	case syscall.DT_REG:
		return direntFile
	case syscall.DT_DIR:
		return direntDir
	case syscall.DT_UNKNOWN:
		var st syscall.Stat_t
		if syscall.Lstat(filepath.Join(dir, string(name)), &st) != nil {
			return direntOther
		}
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFREG:
			return direntFile
		case syscall.S_IFDIR:
			return direntDir
		}
	}
	return direntOther
}

// renameNoReplace renames olddirfd/oldname to newdirfd/newname unless
// newname exists, which fails with EEXIST (errors.Is fs.ErrExist): one
// renameat2 with RENAME_NOREPLACE, the check and the move in one atomic
// step. A file system without the flag (EINVAL) gets the two-step
// fallback, which the inbox lock keeps free of races.
func renameNoReplace(olddirfd int, oldname string, newdirfd int, newname string) error {
	for {
		err := unix.Renameat2(olddirfd, oldname, newdirfd, newname, unix.RENAME_NOREPLACE)
		switch err {
		case unix.EINTR:
			continue
		case unix.EINVAL, unix.ENOSYS:
			return renameCheckFirst(olddirfd, oldname, newdirfd, newname)
		}
		return err
	}
}
