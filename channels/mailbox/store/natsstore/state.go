package natsstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// LoadState implements store.StateStore: the key <agent>.<key> of the
// state bucket.
func (s *Store) LoadState(ctx context.Context, agentID, key string) ([]byte, error) {
	if err := store.CheckStateKey(agentID, key); err != nil {
		return nil, err
	}
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	e, err := s.state.Get(ctx, stateKey(agentID, key))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("load state %s of %q: %w", key, agentID, err)
	}
	return e.Value(), nil
}

// SaveState implements store.StateStore: one put, which replaces the
// record whole.
func (s *Store) SaveState(ctx context.Context, agentID, key string, data []byte) error {
	if err := store.CheckStateKey(agentID, key); err != nil {
		return err
	}
	if err := s.checkOpen(ctx); err != nil {
		return err
	}
	if _, err := s.state.Put(ctx, stateKey(agentID, key), data); err != nil {
		return fmt.Errorf("save state %s of %q: %w", key, agentID, err)
	}
	return nil
}
