//go:build unix && !linux

package fsstore

// renameNoReplace renames olddirfd/oldname to newdirfd/newname unless
// newname exists, which fails with EEXIST (errors.Is fs.ErrExist). This
// system has no atomic no-replace rename: see renameCheckFirst.
func renameNoReplace(olddirfd int, oldname string, newdirfd int, newname string) error {
	return renameCheckFirst(olddirfd, oldname, newdirfd, newname)
}
