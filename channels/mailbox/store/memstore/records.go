package memstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.Records = (*Store)(nil)

// record checks r and that the store is open.
func (s *Store) record(ctx context.Context, r driver.Record) error {
	if err := driver.CheckRecord(r); err != nil {
		return err
	}
	return s.checkOpen(ctx)
}

// LoadRecord implements driver.Records.
func (s *Store) LoadRecord(ctx context.Context, r driver.Record) ([]byte, error) {
	if err := s.record(ctx, r); err != nil {
		return nil, err
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	data, ok := s.hub.records[r]
	if !ok {
		return nil, fmt.Errorf("record %s: %w", r, driver.ErrNoRecord)
	}
	return append([]byte(nil), data...), nil
}

// SaveRecord implements driver.Records.
func (s *Store) SaveRecord(ctx context.Context, r driver.Record, data []byte) error {
	if err := s.record(ctx, r); err != nil {
		return err
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	s.hub.records[r] = append([]byte{}, data...)
	return nil
}

// CreateRecord implements driver.Records.
func (s *Store) CreateRecord(ctx context.Context, r driver.Record, data []byte) error {
	if err := s.record(ctx, r); err != nil {
		return err
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	if _, ok := s.hub.records[r]; ok {
		return fmt.Errorf("record %s: %w", r, driver.ErrRecordExists)
	}
	s.hub.records[r] = append([]byte{}, data...)
	return nil
}

// DeleteRecord implements driver.Records.
func (s *Store) DeleteRecord(ctx context.Context, r driver.Record) error {
	if err := s.record(ctx, r); err != nil {
		return err
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	delete(s.hub.records, r)
	return nil
}

// ListRecords implements driver.Records.
func (s *Store) ListRecords(ctx context.Context, shelf string) ([]string, error) {
	if err := driver.CheckShelf(shelf); err != nil {
		return nil, err
	}
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	var keys []string
	for r := range s.hub.records {
		if r.Shelf == shelf {
			keys = append(keys, r.Key)
		}
	}
	slices.Sort(keys)
	return keys, nil
}
