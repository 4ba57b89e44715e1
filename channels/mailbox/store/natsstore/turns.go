package natsstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

var _ driver.TurnTaker = (*Store)(nil)

// turnShelf is the shelf of the shared duties' keys in the state bucket,
// _turn.<duty>: the Unix time, in nanoseconds, of the duty's last turn.
const turnShelf = "_turn"

// TakeTurn implements driver.TurnTaker with a compare-and-set on the
// duty's key: the caller that replaces a time every or more before now
// (or after now, or unreadable) with now takes the turn; a caller that
// loses the race to another is told false.
func (s *Store) TakeTurn(ctx context.Context, duty string, now time.Time, every time.Duration) (bool, error) {
	if err := s.checkOpen(ctx); err != nil {
		return false, err
	}
	if duty == "" || strings.Trim(duty, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return false, fmt.Errorf("take turn: duty %q: want lower-case letters, digits and '-'", duty)
	}
	key := stateKey(turnShelf, duty)
	stamp := []byte(strconv.FormatInt(now.UnixNano(), 10))
	e, err := s.state.Get(ctx, key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		_, err = s.state.Create(ctx, key, stamp)
	case err != nil:
		return false, fmt.Errorf("take turn at %s: %w", duty, err)
	default:
		if ns, perr := strconv.ParseInt(string(e.Value()), 10, 64); perr == nil {
			if since := now.Sub(time.Unix(0, ns)); since >= 0 && since < every {
				return false, nil
			}
		}
		_, err = s.state.Update(ctx, key, stamp, e.Revision())
	}
	if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return false, nil // another took it meanwhile
	}
	if err != nil {
		return false, fmt.Errorf("take turn at %s: %w", duty, err)
	}
	return true, nil
}
