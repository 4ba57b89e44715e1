package cli

import (
	"os"
	"path/filepath"
	"strings"
)

// readDirUnder lists dir, a folder inside the mailbox tree at root, only
// when every folder from root down to dir is a real folder: a symlink
// (an agent's tmp/ pointing elsewhere, say) is never followed out of the
// tree, so doctor never reads, and --fix never deletes or moves, what
// lies outside it. The tree check reports the symlink itself. A missing
// or refused folder lists nothing.
func readDirUnder(root, dir string) []os.DirEntry {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	path := root
	if rel != "." {
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			path = filepath.Join(path, part)
			fi, err := os.Lstat(path)
			if err != nil || !fi.IsDir() { // a symlink's Lstat is no folder
				return nil
			}
		}
	}
	ents, _ := os.ReadDir(dir)
	return ents
}
