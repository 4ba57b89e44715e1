package memstore

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.RecordUpdater = (*Store)(nil)

// UpdateRecord implements driver.RecordUpdater under the hub's lock.
func (s *Store) UpdateRecord(ctx context.Context, r driver.Record, update func(old []byte) ([]byte, error)) ([]byte, error) {
	if err := s.record(ctx, r); err != nil {
		return nil, err
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	old, ok := s.hub.records[r]
	if ok {
		old = append([]byte{}, old...)
	}
	data, err := update(old)
	if err != nil {
		return nil, err
	}
	if data == nil {
		delete(s.hub.records, r)
		return nil, nil
	}
	s.hub.records[r] = append([]byte{}, data...)
	return data, nil
}
