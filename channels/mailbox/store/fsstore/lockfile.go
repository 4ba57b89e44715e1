package fsstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/backoff"
)

// fileLocks holds the process lock of each lock file the store's shared
// records and artifacts take (by path), as registryProcessLocks does for
// the registry: one goroutine of the process contends for the flock.
var fileLocks sync.Map // path → *processLock

// lockFile takes the exclusive flock on the file at path (created 0600,
// never followed through a symlink), after the process lock of that path,
// and returns the function that releases both. While another process
// holds the flock it tries again after short, growing waits that watch
// ctx (see lockRegistry for why flock is not waited on).
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	q, _ := fileLocks.LoadOrStore(path, &processLock{free: make(chan struct{})})
	plock := q.(*processLock)
	if err := plock.lock(ctx); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o600)
	if err != nil {
		plock.unlock()
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("lock %s: it is a symlink; refusing to follow it", path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	waits := lockRetry.Start()
	for {
		locked, err := tryLock(f)
		if err == nil && !locked {
			err = backoff.Sleep(ctx, clock.Real, waits.Next())
			if err == nil {
				continue
			}
		}
		if err != nil {
			f.Close()
			plock.unlock()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return func() {
			releaseLock(f)
			plock.unlock()
		}, nil
	}
}
