package natsstore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// holder is the value of an inbox lock: who owns the inbox.
type holder struct {
	PID  int    `json:"pid"`
	Host string `json:"host"`
}

func (h holder) String() string {
	if h.Host == hostname() && h.PID == os.Getpid() {
		return fmt.Sprintf("this process (pid %d)", h.PID)
	}
	return fmt.Sprintf("process %d on %s", h.PID, h.Host)
}

// inboxLock is one held lock in the lock bucket. The bucket's TTL frees
// the lock of an owner that stopped renewing it.
type inboxLock struct {
	kv  jetstream.KeyValue
	key string
	val []byte
	rev uint64 // guarded by the owner's goroutines taking turns
}

// lockInbox takes agent's lock, or fails with an error wrapping
// driver.ErrInboxBusy naming the holder. The lock of a process on this host
// that no longer runs is taken over at once.
func (s *Store) lockInbox(ctx context.Context, agent string) (*inboxLock, error) {
	me := holder{PID: os.Getpid(), Host: hostname()}
	val, _ := json.Marshal(me)
	l := &inboxLock{kv: s.locks, key: token(agent), val: val}
	for range 3 {
		rev, err := l.kv.Create(ctx, l.key, val)
		if err == nil {
			l.rev = rev
			return l, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return nil, fmt.Errorf("lock inbox of %q: %w", agent, err)
		}
		e, err := l.kv.Get(ctx, l.key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue // expired meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("lock inbox of %q: %w", agent, err)
		}
		var h holder
		_ = json.Unmarshal(e.Value(), &h)
		if h.Host != me.Host || h.PID == me.PID || alive(h.PID) {
			return nil, fmt.Errorf("inbox of %q is open in %s; stop it first (a crashed holder's lock expires after %s): %w",
				agent, h, s.opts.LockTTL, driver.ErrInboxBusy)
		}
		rev, err = l.kv.Update(ctx, l.key, val, e.Revision())
		if err == nil {
			s.opts.Logger.Info("took over the inbox lock of a process that no longer runs", "agent", agent, "pid", h.PID)
			l.rev = rev
			return l, nil
		}
	}
	return nil, fmt.Errorf("lock inbox of %q: the lock keeps changing hands: %w", agent, driver.ErrInboxBusy)
}

// renew keeps the lock from expiring. A renewal the server took while the
// client gave up waiting for its answer (a loaded server) leaves the lock
// at a revision this owner did not see: renew then reads the key and,
// when it still names this owner, goes on from its revision; a lock that
// expired meanwhile is taken again when no one else took it.
func (l *inboxLock) renew(ctx context.Context) error {
	rev, err := l.kv.Update(ctx, l.key, l.val, l.rev)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		rev, err = l.recover(ctx)
	}
	if err != nil {
		return fmt.Errorf("renew inbox lock: %w", err)
	}
	l.rev = rev
	return nil
}

// holdWhile renews the lock every every until the returned stop is
// called (and has waited for the last renewal): an inbox whose consumers
// take long to be created (a cluster making a thousand replicated
// consumers at once) keeps its lock meanwhile.
func (l *inboxLock) holdWhile(every time.Duration, log *slog.Logger, agent string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
				if err := l.renew(ctx); err != nil {
					log.Error("inbox lock lost while opening the inbox; another process may take it", "agent", agent, "err", err)
				}
				cancel()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// recover finds the lock's revision after a compare-and-set failed: that
// of the key if it still holds this owner's value (renewed once more), a
// new one if the key expired and this owner could create it again.
func (l *inboxLock) recover(ctx context.Context) (uint64, error) {
	e, err := l.kv.Get(ctx, l.key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return l.kv.Create(ctx, l.key, l.val)
	}
	if err != nil {
		return 0, err
	}
	if !bytes.Equal(e.Value(), l.val) {
		var h holder
		_ = json.Unmarshal(e.Value(), &h)
		return 0, fmt.Errorf("the lock expired and %s holds it now: %w", h, jetstream.ErrKeyRevisionMismatch)
	}
	return l.kv.Update(ctx, l.key, l.val, e.Revision())
}

// release deletes the lock if it is still ours. A lock that expired, or
// that another owner took after it expired, is left as it is: there is
// nothing of this owner's to release.
func (l *inboxLock) release(ctx context.Context) error {
	err := l.kv.Delete(ctx, l.key, jetstream.LastRevision(l.rev))
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		e, gerr := l.kv.Get(ctx, l.key)
		switch {
		case errors.Is(gerr, jetstream.ErrKeyNotFound):
			return nil // expired
		case gerr != nil:
			err = gerr
		case !bytes.Equal(e.Value(), l.val):
			return nil // another owner's now
		default: // ours, at a revision a renewal left unseen
			err = l.kv.Delete(ctx, l.key, jetstream.LastRevision(e.Revision()))
		}
	}
	if err != nil {
		return fmt.Errorf("release inbox lock: %w", err)
	}
	return nil
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}
