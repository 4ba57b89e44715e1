//go:build unix

package fsstore

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

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
