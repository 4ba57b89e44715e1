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
// needs. The first time for this Store it checks them all (one lstat
// each, checkDeliveryDirs), creating the missing ones (ensureAgentDirs);
// after that it only makes sure, with three lstats, that the agent
// folder, tmp/ and inbox/ are still the folders it checked, and checks
// everything anew when one is not. A folder removed between
// that and the write makes the create or link fail with fs.ErrNotExist;
// Deliver then calls forgetDirs and asks again.
func (s *Store) deliveryDir(agentID string) (string, error) {
	if v, ok := s.knownDirs.Load(agentID); ok {
		if c := v.(*checkedDirs); c.stillSame() {
			return c.dir, nil
		}
		s.forgetDirs(agentID)
	}
	c, err := s.checkDeliveryDirs(agentID)
	if errors.Is(err, fs.ErrNotExist) { // a first message: make what is missing
		var dir string
		if dir, err = s.ensureAgentDirs(agentID, deliveryDirs...); err == nil {
			c = &checkedDirs{dir: dir}
			for i, p := range c.paths() {
				if c.infos[i], err = os.Lstat(p); err != nil {
					break
				}
			}
		}
	}
	if err != nil {
		return "", err
	}
	s.knownDirs.Store(agentID, c)
	return c.dir, nil
}

// checkDeliveryDirs checks, with one lstat each, that the agent folder of
// agentID and the folders Deliver needs are all there, real folders (no
// symlink) that only this user can write to, as ensureAgentDirs would
// leave them. An error wrapping fs.ErrNotExist says one is missing.
func (s *Store) checkDeliveryDirs(agentID string) (*checkedDirs, error) {
	dir, err := s.agentDir(agentID)
	if err != nil {
		return nil, err
	}
	c := &checkedDirs{dir: dir}
	paths := c.paths()
	for i, p := range append(paths[:], filepath.Join(dir, processedDir)) {
		fi, err := os.Lstat(p)
		if err == nil {
			err = checkDirInfo(p, fi)
		}
		if err == nil {
			err = checkPrivateInfo(p, fi)
		}
		if err != nil {
			return nil, err
		}
		if i < len(c.infos) {
			c.infos[i] = fi
		}
	}
	return c, nil
}

// forgetDirs drops what deliveryDir remembers about agentID.
func (s *Store) forgetDirs(agentID string) { s.knownDirs.Delete(agentID) }

// missingDir reports whether err says that a folder (or the staging file)
// was not there, which a fresh deliveryDir may repair.
func missingDir(err error) bool { return errors.Is(err, fs.ErrNotExist) }
