package fsstore

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// registryLockName is the lock file every registry writer holds while it
// reads, changes and replaces _registry.json.
const registryLockName = "_registry.lock"

// Backoff between attempts to take a busy registry lock.
const (
	lockRetryMin = 500 * time.Microsecond
	lockRetryMax = 20 * time.Millisecond
)

// lockRegistry takes the exclusive flock on <root>/_registry.lock and
// returns the function that releases it. The lock file is created 0600 and
// never followed through a symlink.
//
// flock(2) cannot be interrupted by a context: a blocking flock in a
// goroutine would outlive a cancelled caller and could take the lock after
// the caller gave up, leaving a thread blocked and the lock to be released
// by someone else. So this is the one place in the store that polls: it
// tries LOCK_NB and, while another writer holds the lock (a few
// milliseconds per update), sleeps a short, growing, jittered backoff that
// also watches ctx.
func (s *Store) lockRegistry(ctx context.Context) (unlock func(), err error) {
	path := filepath.Join(s.root, registryLockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("lock registry: %s is a symlink; refusing to follow it", path)
		}
		return nil, fmt.Errorf("lock registry: %w", err)
	}
	wait := lockRetryMin
	var timer *time.Timer
	for {
		locked, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock registry %s: %w", path, err)
		}
		if locked {
			break
		}
		// Jitter keeps waiting writers from retrying in lock step.
		d := wait/2 + rand.N(wait/2+1)
		if timer == nil {
			timer = time.NewTimer(d)
			defer timer.Stop()
		} else {
			timer.Reset(d)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock registry: %w", ctx.Err())
		case <-timer.C:
		}
		wait = min(2*wait, lockRetryMax)
	}
	return func() {
		// Closing the descriptor releases the flock.
		f.Close()
	}, nil
}
