package fsstore

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// deliveryDirs are the folders of an agent that Deliver writes to.
var deliveryDirs = []string{inboxDir, processedDir, tmpDir}

// checkedDirs is what deliveryDir remembers of an agent's folders: the
// agent folder and the two Deliver writes through (tmp/ and inbox/), as
// they were when ensureAgentDirs created and checked them.
type checkedDirs struct {
	dir   string
	infos [3]fs.FileInfo // dir, dir/tmp, dir/inbox
}

func (c *checkedDirs) paths() [3]string {
	return [3]string{c.dir, filepath.Join(c.dir, tmpDir), filepath.Join(c.dir, inboxDir)}
}

// stillSame reports whether the remembered folders are still the same
// real folders with the same mode: one lstat each, no symlink followed. A
// folder replaced (by a symlink, or anything else) or chmodded fails it.
func (c *checkedDirs) stillSame() bool {
	for i, p := range c.paths() {
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() || !os.SameFile(fi, c.infos[i]) || fi.Mode() != c.infos[i].Mode() {
			return false
		}
	}
	return true
}

// deliveryDir returns the agent folder of agentID with the folders Deliver
// needs. The first time for this Store it creates and checks them all
// (ensureAgentDirs); after that it only makes sure, with three lstats,
// that the agent folder, tmp/ and inbox/ are still the folders it checked,
// and checks everything anew when one is not. A folder removed between
// that and the write makes the create or link fail with fs.ErrNotExist;
// Deliver then calls forgetDirs and asks again.
func (s *Store) deliveryDir(agentID string) (string, error) {
	if v, ok := s.knownDirs.Load(agentID); ok {
		if c := v.(*checkedDirs); c.stillSame() {
			return c.dir, nil
		}
		s.forgetDirs(agentID)
	}
	dir, err := s.ensureAgentDirs(agentID, deliveryDirs...)
	if err != nil {
		return "", err
	}
	c := &checkedDirs{dir: dir}
	for i, p := range c.paths() {
		if c.infos[i], err = os.Lstat(p); err != nil {
			return "", err
		}
	}
	s.knownDirs.Store(agentID, c)
	return dir, nil
}

// forgetDirs drops what deliveryDir remembers about agentID.
func (s *Store) forgetDirs(agentID string) { s.knownDirs.Delete(agentID) }

// missingDir reports whether err says that a folder (or the staging file)
// was not there, which a fresh deliveryDir may repair.
func missingDir(err error) bool { return errors.Is(err, fs.ErrNotExist) }
