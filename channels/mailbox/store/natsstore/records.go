package natsstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.Records = (*Store)(nil)

// recordKey checks r and returns its key in the state bucket:
// <shelf>.<key>, the shelf as token writes an agent id (the approvals:
// _approval.<id> and _decision.<id>).
func (s *Store) recordKey(ctx context.Context, r driver.Record) (string, error) {
	if err := driver.CheckRecord(r); err != nil {
		return "", err
	}
	if err := s.checkOpen(ctx); err != nil {
		return "", err
	}
	return stateKey(r.Shelf, r.Key), nil
}

// LoadRecord implements driver.Records.
func (s *Store) LoadRecord(ctx context.Context, r driver.Record) ([]byte, error) {
	key, err := s.recordKey(ctx, r)
	if err != nil {
		return nil, err
	}
	e, err := s.state.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, fmt.Errorf("record %s: %w", r, driver.ErrNoRecord)
	}
	if err != nil {
		return nil, fmt.Errorf("load record %s: %w", r, err)
	}
	return e.Value(), nil
}

// SaveRecord implements driver.Records: one put, which replaces the
// record whole.
func (s *Store) SaveRecord(ctx context.Context, r driver.Record, data []byte) error {
	key, err := s.recordKey(ctx, r)
	if err != nil {
		return err
	}
	if _, err := s.state.Put(ctx, key, data); err != nil {
		return fmt.Errorf("save record %s: %w", r, err)
	}
	return nil
}

// CreateRecord implements driver.Records: the bucket's Create, which
// fails when the key holds a value.
func (s *Store) CreateRecord(ctx context.Context, r driver.Record, data []byte) error {
	key, err := s.recordKey(ctx, r)
	if err != nil {
		return err
	}
	_, err = s.state.Create(ctx, key, data)
	if errors.Is(err, jetstream.ErrKeyExists) {
		return fmt.Errorf("create record %s: %w", r, driver.ErrRecordExists)
	}
	if err != nil {
		return fmt.Errorf("create record %s: %w", r, err)
	}
	return nil
}

// DeleteRecord implements driver.Records: the key is purged (no history
// is kept of it).
func (s *Store) DeleteRecord(ctx context.Context, r driver.Record) error {
	key, err := s.recordKey(ctx, r)
	if err != nil {
		return err
	}
	if err := s.state.Purge(ctx, key); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		return fmt.Errorf("delete record %s: %w", r, err)
	}
	return nil
}

// ListRecords implements driver.Records: a watch of the shelf's keys,
// read up to the end of what is stored. Keys that are no record's (a
// count of delivery attempts) are left out.
func (s *Store) ListRecords(ctx context.Context, shelf string) ([]string, error) {
	if err := driver.CheckShelf(shelf); err != nil {
		return nil, err
	}
	if err := s.checkOpen(ctx); err != nil {
		return nil, err
	}
	prefix := token(shelf) + "."
	if s.noneStored(ctx, prefix+"*") {
		return []string{}, nil
	}
	w, err := s.state.Watch(ctx, prefix+"*", jetstream.IgnoreDeletes(), jetstream.MetaOnly())
	if err != nil {
		return nil, fmt.Errorf("list records of %s: %w", shelf, err)
	}
	defer w.Stop()
	keys := []string{}
	for {
		select {
		case e, ok := <-w.Updates():
			if !ok {
				return nil, fmt.Errorf("list records of %s: the listing ended early", shelf)
			}
			if e == nil { // all stored keys were seen
				slices.Sort(keys)
				return keys, nil
			}
			if key := strings.TrimPrefix(e.Key(), prefix); driver.CheckRecordKey(key) == nil {
				keys = append(keys, key)
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
