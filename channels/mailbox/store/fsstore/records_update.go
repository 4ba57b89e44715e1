package fsstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.RecordUpdater = (*Store)(nil)

// UpdateRecord implements driver.RecordUpdater: under an exclusive lock
// on the record's lock file (.<key>.lock beside it), the record is read,
// update computes the new one, and it replaces the record by a rename
// (or the record is removed), so readers without the lock see the old
// record or the new one whole.
func (s *Store) UpdateRecord(ctx context.Context, r driver.Record, update func(old []byte) ([]byte, error)) ([]byte, error) {
	p, path, err := s.recordPath(r)
	if err != nil {
		return nil, err
	}
	if err := makePlace(p); err != nil {
		return nil, fmt.Errorf("update record %s: %w", r, err)
	}
	unlock, err := lockFile(ctx, filepath.Join(p.dir(), "."+r.Key+".lock"))
	if err != nil {
		return nil, fmt.Errorf("update record %s: %w", r, err)
	}
	defer unlock()
	old, err := s.LoadRecord(ctx, r)
	if errors.Is(err, driver.ErrNoRecord) {
		old, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	data, err := update(old)
	if err != nil {
		return nil, err
	}
	if data == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("update record %s: %w", r, err)
		}
		return nil, nil
	}
	if err := writeFileAtomic(path, data, !s.opts.NoSync); err != nil {
		return nil, fmt.Errorf("update record %s: %s: %w", r, path, err)
	}
	return data, nil
}
