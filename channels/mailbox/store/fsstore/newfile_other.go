//go:build !linux

package fsstore

// createNew writes data to a new file name in dir (mode 0600), whole or
// not at all; a name that exists fails with an error wrapping
// fs.ErrExist. This system has no O_TMPFILE: see createNewRenamed.
func createNew(dir, name string, data []byte) error {
	return createNewRenamed(dir, name, data)
}
