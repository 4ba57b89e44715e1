package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// recipientOf names the inbox that message i of a concurrent run goes
// to: bench-rx for one inbox, else one of inboxes agents in turn.
func recipientOf(i, inboxes int) string {
	if inboxes <= 1 {
		return receiverID
	}
	return fmt.Sprintf("%s-%03d", receiverID, i%inboxes)
}

// parallel runs fn(i) for i in [0, n) from goroutines goroutines, each
// taking the next i as it is free, and returns the first error.
func parallel(ctx context.Context, n, goroutines int, fn func(i int) error) error {
	var (
		next   atomic.Int64
		first  error
		mu     sync.Mutex
		failed atomic.Bool
		wg     sync.WaitGroup
	)
	for range max(goroutines, 1) {
		wg.Go(func() {
			for !failed.Load() && ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					first = err
					mu.Unlock()
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}

// deliverConcurrent delivers n probes through s from goroutines
// goroutines at once, message i to recipientOf(i, inboxes).
func (s *sender) deliverConcurrent(ctx context.Context, n, goroutines, inboxes int) error {
	return parallel(ctx, n, goroutines, func(i int) error {
		msg, err := probeTo(recipientOf(i, inboxes), i, time.Now(), s.text)
		if err != nil {
			return err
		}
		if err := s.st.Deliver(ctx, msg); err != nil {
			return fmt.Errorf("send %d: %w", i, err)
		}
		return nil
	})
}

// rawFolders are the folders of the raw peer's recipients: tmp/ and
// inbox/ of each.
type rawFolders [][2]string

// makeRawFolders makes the folders of inboxes recipients under dir.
func makeRawFolders(dir string, inboxes int) (rawFolders, error) {
	inboxes = max(inboxes, 1)
	folders := make(rawFolders, inboxes)
	for k := range folders {
		base := filepath.Join(dir, recipientOf(k, inboxes))
		folders[k] = [2]string{filepath.Join(base, "tmp"), filepath.Join(base, "inbox")}
		for _, d := range folders[k] {
			if err := os.MkdirAll(d, 0o700); err != nil {
				return nil, err
			}
		}
	}
	return folders, nil
}

// rawConcurrent is the raw peer of deliverConcurrent: n raw durable (or,
// without fsync, plain) writes of payload (see rawWriter) from goroutines
// goroutines at once, write i into folders[i%len(folders)] under the name
// first+i, each one a create, write, fsync, link, folder fsync and
// remove of its own: nothing shared.
func (folders rawFolders) rawConcurrent(ctx context.Context, first, n, goroutines int, payload []byte, fsync bool) error {
	return parallel(ctx, n, goroutines, func(i int) error {
		f := folders[i%len(folders)]
		name := strconv.Itoa(first+i) + ".msg.json"
		staging := filepath.Join(f[0], name+".tmp")
		if err := writeFile(staging, payload, fsync); err != nil {
			return err
		}
		if err := os.Link(staging, filepath.Join(f[1], name)); err != nil {
			return err
		}
		if fsync {
			if err := syncDir(f[1]); err != nil {
				return err
			}
		}
		return os.Remove(staging)
	})
}
