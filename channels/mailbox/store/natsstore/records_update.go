package natsstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.RecordUpdater = (*Store)(nil)

// UpdateRecord implements driver.RecordUpdater with compare-and-set on the
// record's key, as UpdateCard does: a write that finds the key changed
// since it was read starts over from the new value.
func (s *Store) UpdateRecord(ctx context.Context, r driver.Record, update func(old []byte) ([]byte, error)) ([]byte, error) {
	key, err := s.recordKey(ctx, r)
	if err != nil {
		return nil, err
	}
	for range casAttempts {
		var old []byte
		var rev uint64
		e, err := s.state.Get(ctx, key)
		switch {
		case errors.Is(err, jetstream.ErrKeyNotFound):
		case err != nil:
			return nil, fmt.Errorf("update record %s: %w", r, err)
		default:
			old, rev = e.Value(), e.Revision()
		}
		data, err := update(old)
		if err != nil {
			return nil, err
		}
		switch {
		case data == nil && rev == 0:
			return nil, nil
		case data == nil:
			err = s.state.Delete(ctx, key, jetstream.LastRevision(rev))
		case rev == 0:
			_, err = s.state.Create(ctx, key, data)
		default:
			_, err = s.state.Update(ctx, key, data, rev)
		}
		if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) || isWrongLastSequence(err) {
			continue // someone else wrote it meanwhile: start over
		}
		if err != nil {
			return nil, fmt.Errorf("update record %s: %w", r, err)
		}
		return data, nil
	}
	return nil, fmt.Errorf("update record %s: %d writers kept changing it; try again", r, casAttempts)
}

// isWrongLastSequence reports whether err is the server's refusal of a
// write whose expected revision is not the key's last one (a Delete with
// LastRevision reports it so).
func isWrongLastSequence(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}
