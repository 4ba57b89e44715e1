package fsstore

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// turnPrefix begins the name of a shared duty's file in the root,
// _turn.<duty>: it holds the Unix time, in nanoseconds, of the duty's last
// turn, and its flock is held by whoever is deciding the next.
const turnPrefix = "_turn."

var _ driver.TurnTaker = (*Store)(nil)

// TakeTurn implements driver.TurnTaker with the duty's file in the root:
// under its flock, taken without waiting (a caller that finds it held is
// told false: someone is taking the turn now), it reads the time of the
// last turn and, when that is every or more before now (or after now, or
// unreadable), writes now and reports true.
func (s *Store) TakeTurn(ctx context.Context, duty string, now time.Time, every time.Duration) (bool, error) {
	if err := s.checkOpen(); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if duty == "" || strings.Trim(duty, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
		return false, fmt.Errorf("take turn: duty %q: want lower-case letters, digits and '-'", duty)
	}
	f, err := openLockFile(filepath.Join(s.root, turnPrefix+duty))
	if err != nil {
		return false, fmt.Errorf("take turn at %s: %w", duty, err)
	}
	locked, err := tryLock(f)
	if err != nil || !locked {
		f.Close()
		return false, err
	}
	defer releaseLock(f)
	buf := make([]byte, 32)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return false, fmt.Errorf("take turn at %s: %w", duty, err)
	}
	if ns, perr := strconv.ParseInt(strings.TrimSpace(string(buf[:n])), 10, 64); perr == nil {
		last := time.Unix(0, ns)
		if since := now.Sub(last); since >= 0 && since < every {
			return false, nil
		}
	}
	stamp := strconv.AppendInt(nil, now.UnixNano(), 10)
	if _, err := f.WriteAt(append(stamp, '\n'), 0); err != nil {
		return false, fmt.Errorf("take turn at %s: %w", duty, err)
	}
	if err := f.Truncate(int64(len(stamp) + 1)); err != nil {
		return false, fmt.Errorf("take turn at %s: %w", duty, err)
	}
	return true, nil
}
