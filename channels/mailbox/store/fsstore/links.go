package fsstore

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// extraLinks returns why the message file dir/name cannot be used because
// it has more than one link, or "" when it has one. A file linked from
// elsewhere may be a file outside the tree: reading it would leak it and
// repairing it (doctor --fix) would change it, so it is refused. One
// second link is expected: the sender's staging file in the agent's tmp/,
// which a sender removes right after linking (or never, if it died). Such
// a twin is removed here, as the sender would have, and the file used.
func (in *Inbox) extraLinks(dir, name string) string {
	path := filepath.Join(dir, name)
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || linkCount(fi) <= 1 {
		return "" // readMessage reports a missing or odd file (a folder has several links)
	}
	in.removeStagingTwin(fi)
	if fi, err = os.Lstat(path); err != nil {
		return ""
	}
	if n := linkCount(fi); n > 1 {
		return fmt.Sprintf("hard link (%d links): a message file must have one link; another may be a file outside the mailbox", n)
	}
	return ""
}

// removeStagingTwin removes the files of the agent's tmp/ that are the
// file fi describes.
func (in *Inbox) removeStagingTwin(fi fs.FileInfo) {
	tmp := filepath.Join(in.dir, tmpDir)
	err := eachEntry(tmp, func(e fs.DirEntry) {
		if classify(e.Name()) != entryWriting || !e.Type().IsRegular() {
			return
		}
		if sfi, err := e.Info(); err == nil && os.SameFile(fi, sfi) {
			if os.Remove(filepath.Join(tmp, e.Name())) == nil {
				in.log.Info("removed the staging file of a delivered message", "file", e.Name())
			}
		}
	})
	if err != nil {
		in.log.Warn("look for a staging file", "err", err)
	}
}
