package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// StateStore keeps small records a mailbox agent must not lose across a
// restart (the tasks it delegated and their callbacks, the replies it
// awaits, its breakers), next to its inbox. *Store is one; the packages
// that keep such records take this interface, so that a test can hand
// them another.
type StateStore interface {
	// LoadState returns the record stored under key for agentID, or nil
	// and no error when there is none.
	LoadState(ctx context.Context, agentID, key string) ([]byte, error)
	// SaveState replaces the record atomically: a reader sees the old or
	// the new record, never a mix.
	SaveState(ctx context.Context, agentID, key string, data []byte) error
}

// Registry holds the agent cards. *Store is one; the packages that only
// read or update cards take this interface.
type Registry = driver.Registry

// ErrCorruptState is wrapped by the readers of a state record whose
// content does not decode: a record written by hand or by another
// program, since SaveState replaces a record whole.
var ErrCorruptState = errors.New("corrupt record")

var _ StateStore = (*Store)(nil)

// LoadState returns agentID's record key, or nil and no error when there
// is none: the backend's record on the agent's shelf.
func (s *Store) LoadState(ctx context.Context, agentID, key string) ([]byte, error) {
	if err := CheckStateKey(agentID, key); err != nil {
		return nil, err
	}
	data, err := s.be.LoadRecord(ctx, driver.Record{Shelf: agentID, Key: key})
	if errors.Is(err, driver.ErrNoRecord) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load state %s of %q: %w", key, agentID, err)
	}
	return data, nil
}

// SaveState replaces agentID's record key with data, atomically.
func (s *Store) SaveState(ctx context.Context, agentID, key string, data []byte) error {
	if err := CheckStateKey(agentID, key); err != nil {
		return err
	}
	if err := s.be.SaveRecord(ctx, driver.Record{Shelf: agentID, Key: key}, data); err != nil {
		return fmt.Errorf("save state %s of %q: %w", key, agentID, err)
	}
	return nil
}

// validStateKey reports whether key looks like the key of a state
// record: 1 to 64 lower-case letters, digits, '-' and '_', starting with a
// letter or digit. Checked by hand: every agent checks its keys as it
// starts, and compiling the regular expression for it was 1 % of a
// thousand agents' start.
func validStateKey(key string) bool {
	if len(key) == 0 || len(key) > 64 {
		return false
	}
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// CheckStateKey validates the agent id and the key of a state record: the
// key is 1 to 64 lower-case letters, digits, '-' and '_', starting with a
// letter or digit, so it is safe as a file name, a KV key token and a map
// key alike.
func CheckStateKey(agentID, key string) error {
	if err := envelope.ValidateAgentID(agentID); err != nil {
		return err
	}
	if !validStateKey(key) {
		return fmt.Errorf("state key %q: want lower-case letters, digits, '-' or '_'", key)
	}
	return nil
}
