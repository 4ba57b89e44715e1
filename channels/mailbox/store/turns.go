package store

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// TakeTurn reports whether the caller should do the periodic duty now,
// shared among every agent of the store (see driver.TurnTaker): at most
// one caller per every is told true. A store that cannot share duties
// tells every caller true, so each does the duty itself.
func (s *Store) TakeTurn(ctx context.Context, duty string, now time.Time, every time.Duration) (bool, error) {
	tt, ok := s.be.(driver.TurnTaker)
	if !ok {
		return true, nil
	}
	return tt.TakeTurn(ctx, duty, now, every)
}
