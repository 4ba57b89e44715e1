package fsstore

import (
	"fmt"
	"os"

	"github.com/switchboard-dev/switchboard/internal/fileinfo"
)

// checkPrivate refuses a folder of the tree below the root (an agent's
// folder or one of its folders) that group or others can write to, or
// that another user owns: like the root (checkRoot), because whoever can
// write there can plant, alter or remove that agent's messages. A folder
// only others can read (nanobot makes them 0755) is used.
func checkPrivate(path string) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	return checkPrivateInfo(path, fi)
}

// checkPrivateInfo is checkPrivate on what an Lstat of path returned.
func checkPrivateInfo(path string, fi os.FileInfo) error {
	if perm := fi.Mode().Perm(); perm&0o022 != 0 {
		return fmt.Errorf("mailbox folder %s is writable by group or others (mode %04o), so they could plant or alter messages; run: chmod 700 %s (or switchboard doctor --fix)",
			path, perm, path)
	}
	if owner, ok := fileinfo.Owner(fi); ok {
		if uid := os.Geteuid(); owner != uid {
			return fmt.Errorf("mailbox folder %s is owned by uid %d, not by you (uid %d); run: chown %d %s && chmod 700 %s",
				path, owner, uid, uid, path, path)
		}
	}
	return nil
}
