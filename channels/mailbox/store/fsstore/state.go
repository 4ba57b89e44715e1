package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// statePath returns <root>/<agent>/state/<key>.json after validating both.
func (s *Store) statePath(agentID, key string) (string, error) {
	if err := store.CheckStateKey(agentID, key); err != nil {
		return "", err
	}
	return filepath.Join(s.root, agentID, "state", key+".json"), nil
}

// LoadState implements store.StateStore: the file <agent>/state/<key>.json.
// Neither the agent folder nor state/ is followed if it is a symlink.
func (s *Store) LoadState(_ context.Context, agentID, key string) ([]byte, error) {
	path, err := s.statePath(agentID, key)
	if err != nil {
		return nil, err
	}
	for _, dir := range []string{filepath.Dir(filepath.Dir(path)), filepath.Dir(path)} {
		if err := checkDir(dir); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		} else if err != nil {
			return nil, fmt.Errorf("load state: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load state %s: %w", path, err)
	}
	defer f.Close()
	data, err := readAllCapped(f, s.opts.MaxMessageBytes*16)
	if err != nil {
		return nil, fmt.Errorf("load state %s: %w", path, err)
	}
	return data, nil
}

// SaveState implements store.StateStore: a temp file in the same folder,
// synced, then renamed over the record. The folders are created as needed
// and refused if they are symlinks.
func (s *Store) SaveState(_ context.Context, agentID, key string, data []byte) error {
	path, err := s.statePath(agentID, key)
	if err != nil {
		return err
	}
	if _, err := s.ensureAgentDirs(agentID, stateDir); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	if err := writeFileAtomic(path, data, !s.opts.NoSync); err != nil {
		return fmt.Errorf("save state %s: %w", path, err)
	}
	return nil
}
