package fsstore

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/internal/fileinfo"
)

// extraLinks returns why the message file dir/name cannot be used because
// it has more than one link, or "" when it has one. A file linked from
// elsewhere may be a file outside the tree: reading it would leak it and
// repairing it (doctor --fix) would change it, so it is refused. One
// second link is expected: the sender's staging file in the agent's tmp/,
// which a sender removes right after linking. A young one is left to its
// sender; an old one (the sender died) is dropped here (dropStaging,
// which logs the "sent" line the sender could not).
func (in *Inbox) extraLinks(dir, name string) string {
	path := filepath.Join(dir, name)
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() || fileinfo.Links(fi) <= 1 {
		return "" // readMessage reports a missing or odd file (a folder has several links)
	}
	young := in.settleStagingTwins(fi)
	if fi, err = os.Lstat(path); err != nil {
		return ""
	}
	if n := fileinfo.Links(fi); n > 1+uint64(young) {
		return fmt.Sprintf("hard link (%d links): a message file must have one link; another may be a file outside the mailbox", n)
	}
	return ""
}

// settleStagingTwins drops the staging files of the agent's tmp/ that are
// the file fi describes and older than stagingMaxAge, and returns how many
// younger ones are still there.
func (in *Inbox) settleStagingTwins(fi fs.FileInfo) (young int) {
	tmp := filepath.Join(in.dir, tmpDir)
	cutoff := in.s.opts.Now().Add(-stagingMaxAge)
	err := eachEntry(tmp, func(e fs.DirEntry) {
		if classify(e.Name()) != entryWriting || !e.Type().IsRegular() {
			return
		}
		sfi, err := e.Info()
		if err != nil || !os.SameFile(fi, sfi) {
			return
		}
		if sfi.ModTime().Before(cutoff) {
			in.dropStaging(tmp, e.Name(), sfi)
		} else {
			young++
		}
	})
	if err != nil {
		in.log.Warn("look for a staging file", "err", err)
	}
	return young
}
