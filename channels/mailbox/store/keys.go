package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// ErrStateExists is wrapped by CreateState when the record is there
// already.
var ErrStateExists = driver.ErrRecordExists

// CreateState stores data as agentID's record key unless there is one,
// which fails with an error wrapping ErrStateExists: of several processes
// creating it at once, exactly one succeeds (driver.Records.CreateRecord).
func (s *Store) CreateState(ctx context.Context, agentID, key string, data []byte) error {
	if err := CheckStateKey(agentID, key); err != nil {
		return err
	}
	if err := s.be.CreateRecord(ctx, driver.Record{Shelf: agentID, Key: key}, data); err != nil {
		return fmt.Errorf("create state %s of %q: %w", key, agentID, err)
	}
	return nil
}

// KeepsSecrets reports whether an agent's state records are readable only
// by the user who runs the agents (driver.SecretKeeper: the folder and
// memory stores), so that an agent's signing key may be kept among them.
func (s *Store) KeepsSecrets() bool { return s.Has(CanKeepSecrets) }

// CredentialSeed returns the seed of the key the store connects with, when
// it connects with a key of agent (NATS credentials or an nkey seed file
// of the agent the store was opened for); otherwise it fails with an error
// wrapping ErrNotSupported.
func (s *Store) CredentialSeed(agent string) ([]byte, error) {
	ck, ok := s.be.(driver.CredentialKeys)
	if !ok {
		return nil, notSupported(CanUseCredentialKey)
	}
	seed, err := ck.CredentialSeed(agent)
	if errors.Is(err, driver.ErrNoCredentialKey) {
		return nil, fmt.Errorf("%w: %w", ErrNotSupported, err)
	}
	return seed, err
}
