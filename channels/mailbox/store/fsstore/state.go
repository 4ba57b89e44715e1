package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

var stateKeyPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// statePath returns <root>/<agent>/state/<key>.json after validating both.
func (s *Store) statePath(agentID, key string) (string, error) {
	if err := envelope.ValidateAgentID(agentID); err != nil {
		return "", err
	}
	if !stateKeyPattern.MatchString(key) {
		return "", fmt.Errorf("state key %q: want lower-case letters, digits, '-' or '_'", key)
	}
	return filepath.Join(s.root, agentID, "state", key+".json"), nil
}

// LoadState implements store.StateStore: the file <agent>/state/<key>.json.
func (s *Store) LoadState(_ context.Context, agentID, key string) ([]byte, error) {
	path, err := s.statePath(agentID, key)
	if err != nil {
		return nil, err
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
// synced, then renamed over the record.
func (s *Store) SaveState(_ context.Context, agentID, key string, data []byte) error {
	path, err := s.statePath(agentID, key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	if err := writeFileAtomic(path, data, !s.opts.NoSync); err != nil {
		return fmt.Errorf("save state %s: %w", path, err)
	}
	return nil
}
