package fsstore

import (
	"os"
	"path/filepath"

	"github.com/google/uuid"
)

// createNewRenamed is createNew in the portable way: a uniquely named temp
// file beside the target (created exclusively, mode 0600), written and
// renamed in without replacing anything.
func createNewRenamed(dir, name string, data []byte) error {
	tmp := filepath.Join(dir, "."+name+"."+uuid.NewString()+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = renamePaths(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
