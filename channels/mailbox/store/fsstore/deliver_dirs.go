package fsstore

import (
	"errors"
	"io/fs"
)

// deliveryDirs are the folders of an agent that Deliver writes to.
var deliveryDirs = []string{inboxDir, processedDir, tmpDir}

// deliveryDir returns the agent folder of agentID with the folders Deliver
// needs, creating and checking them (ensureAgentDirs) only the first time
// for this Store: after that a send costs no mkdir or lstat. A folder
// removed later makes the create or link of the next send fail with
// fs.ErrNotExist; Deliver then calls forgetDirs and asks again, which
// creates and checks everything anew.
func (s *Store) deliveryDir(agentID string) (string, error) {
	if dir, ok := s.knownDirs.Load(agentID); ok {
		return dir.(string), nil
	}
	dir, err := s.ensureAgentDirs(agentID, deliveryDirs...)
	if err != nil {
		return "", err
	}
	s.knownDirs.Store(agentID, dir)
	return dir, nil
}

// forgetDirs drops what deliveryDir remembers about agentID.
func (s *Store) forgetDirs(agentID string) { s.knownDirs.Delete(agentID) }

// missingDir reports whether err says that a folder (or the staging file)
// was not there, which a fresh deliveryDir may repair.
func missingDir(err error) bool { return errors.Is(err, fs.ErrNotExist) }
