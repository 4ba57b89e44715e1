package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// ListState returns the keys of agentID's state records that start with
// prefix ("" for all), sorted: for a part that keeps one record per item
// (the A2A gateway's tasks) and must find them again after a restart.
func (s *Store) ListState(ctx context.Context, agentID, prefix string) ([]string, error) {
	if err := envelope.ValidateAgentID(agentID); err != nil {
		return nil, err
	}
	keys, err := s.be.ListRecords(ctx, agentID)
	if err != nil {
		return nil, fmt.Errorf("list state of %q: %w", agentID, err)
	}
	out := keys[:0:0]
	for _, k := range keys {
		if strings.HasPrefix(k, prefix) {
			out = append(out, k)
		}
	}
	return out, nil
}

// DeleteState removes agentID's record key; one that is not there is no
// error.
func (s *Store) DeleteState(ctx context.Context, agentID, key string) error {
	if err := CheckStateKey(agentID, key); err != nil {
		return err
	}
	if err := s.be.DeleteRecord(ctx, driver.Record{Shelf: agentID, Key: key}); err != nil {
		return fmt.Errorf("delete state %s of %q: %w", key, agentID, err)
	}
	return nil
}
