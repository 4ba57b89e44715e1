//go:build linux

package fsstore

import "golang.org/x/sys/unix"

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
