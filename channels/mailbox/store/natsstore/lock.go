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
	kv   jetstream.KeyValue
	key  string
	val  []byte
	ttls *lockTTLCache // the TTLs it lives by
	// rev and renewed (when the last write that worked was sent) are
	// guarded by the owner's goroutines taking turns.
	rev     uint64
	renewed time.Time
}

// lockInbox takes agent's lock, or fails with an error wrapping
// driver.ErrInboxBusy naming the holder. The lock of a process on this host
// that no longer runs is taken over at once.
func (s *Store) lockInbox(ctx context.Context, agent string) (*inboxLock, error) {
	ttls, err := s.readLockTTLs(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock inbox of %q: %w", agent, err)
	}
	me := holder{PID: os.Getpid(), Host: hostname()}
	val, _ := json.Marshal(me)
	l := &inboxLock{kv: s.locks, key: token(agent), val: val, ttls: ttls}
	for range 3 {
		at := time.Now()
		rev, err := l.kv.Create(ctx, l.key, val)
		if err == nil {
			l.rev, l.renewed = rev, at
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
			expiry := fmt.Sprintf("expires after %s", ttls.get().expiry)
			if ttls.get().expiry == 0 {
				expiry = "stays until removed: the lock bucket has no TTL"
			}
			return nil, fmt.Errorf("inbox of %q is open in %s; stop it first (a crashed holder's lock %s): %w",
				agent, h, expiry, driver.ErrInboxBusy)
		}
		at = time.Now()
		rev, err = l.kv.Update(ctx, l.key, val, e.Revision())
		if err == nil {
			s.opts.Logger.Info("took over the inbox lock of a process that no longer runs", "agent", agent, "pid", h.PID)
			l.rev, l.renewed = rev, at
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
	at := time.Now()
	rev, err := l.kv.Update(ctx, l.key, l.val, l.rev)
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		rev, err = l.recover(ctx)
	}
	if err != nil {
		return fmt.Errorf("renew inbox lock: %w", err)
	}
	l.rev, l.renewed = rev, at
	return nil
}

// Renewal periods, by the TTL the lock is renewed by (see readLockTTLs). The
// lock is renewed at half its TTL (one write every 30 s with the default
// lockTtl of 60 s; 7.5 s with a bucket made at 15 s): a crashed holder's lock still expires at most one TTL after its
// last renewal, and a renewal that fails (a server restarting, loaded) is
// tried again a tenth of the TTL after it ended (see renewalDelay): the
// half TTL left before the lock would expire holds up to five quick
// refusals, fewer tries that each wait out their timeout.
func renewPeriod(ttl time.Duration) time.Duration { return ttl / 2 }

func renewRetry(ttl time.Duration) time.Duration { return max(ttl/10, 50*time.Millisecond) }

// renewer times the renewals of one lock: renewPeriod after a renewal that
// worked, renewRetry after one that failed, by the TTL the lock is
// renewed by at the time (see readLockTTLs).
type renewer struct {
	l *inboxLock
	t *time.Timer
}

// renewer starts timing the lock's renewals: the first is due renewPeriod
// after the last write of the lock that worked (the one that took it, or
// a renewal while the inbox opened), not after the renewer was made.
func (l *inboxLock) renewer() *renewer {
	first := renewPeriod(l.ttls.get().renew)
	if !l.renewed.IsZero() {
		first = max(first-time.Since(l.renewed), 0)
	}
	return &renewer{l: l, t: time.NewTimer(first)}
}

// C fires when the next renewal is due.
func (r *renewer) C() <-chan time.Time { return r.t.C }

// renew renews the lock and sets when the next renewal is due (see
// renewalDelay).
func (r *renewer) renew(ctx context.Context) error {
	began := time.Now()
	err := r.l.renew(ctx)
	r.t.Reset(renewalDelay(err, r.l.ttls.get().renew, time.Since(began)))
	return err
}

// renewalDelay is how long after a renewal that took took and ended with
// err the next one is due. After one that worked, or found the lock
// another owner's (which is not asked for again sooner), renewPeriod
// counted from when it began (the server stamped the renewal after that):
// a renewal that took long does not push the next one towards the expiry.
// After any other failure, renewRetry counted from its end: a server that
// did not answer in time is busy, and a renewal sent again at once would
// only add to what it has to do (a thousand agents on a loaded cluster
// each kept one renewal waiting at the server at all times).
func renewalDelay(err error, ttl, took time.Duration) time.Duration {
	if err != nil && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return renewRetry(ttl)
	}
	return max(renewPeriod(ttl)-took, 0)
}

func (r *renewer) stop() { r.t.Stop() }

// holdWhile renews the lock until the returned stop is called
// (and has waited for the last renewal): an inbox whose consumers take
// long to be created (a cluster making a thousand replicated consumers at
// once) keeps its lock meanwhile.
func (l *inboxLock) holdWhile(log *slog.Logger, agent string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		r := l.renewer()
		defer r.stop()
		for {
			select {
			case <-done:
				return
			case <-r.C():
				ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
				if err := r.renew(ctx); err != nil {
					log.Error("inbox lock not renewed while opening the inbox; another process may take it once it expires", "agent", agent, "err", err)
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

// errLockUnsettled is recover's error when what it read of the key is not
// what the leader holds (read as gone and found there when created again,
// or read as this owner's at a revision the leader no longer has, when
// the lock expired): a renewal that is tried again soon (renewalDelay),
// not a lock another owner took.
var errLockUnsettled = errors.New("the inbox lock read as expired but is still there (a replica behind the leader?)")

// recover finds the lock's revision after a compare-and-set failed: that
// of the key if it still holds this owner's value (renewed once more), a
// new one if the key expired and this owner could create it again.
func (l *inboxLock) recover(ctx context.Context) (uint64, error) {
	e, err := l.kv.Get(ctx, l.key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		rev, err := l.kv.Create(ctx, l.key, l.val)
		if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			// Read as gone, yet there: on a cluster a read can be served
			// by a replica that has not applied the last renewal. That
			// says nothing of who holds the lock: read again soon.
			return 0, errLockUnsettled
		}
		return rev, err
	}
	if err != nil {
		return 0, err
	}
	if !bytes.Equal(e.Value(), l.val) {
		var h holder
		_ = json.Unmarshal(e.Value(), &h)
		return 0, fmt.Errorf("the lock expired and %s holds it now: %w", h, jetstream.ErrKeyRevisionMismatch)
	}
	rev, err := l.kv.Update(ctx, l.key, l.val, e.Revision())
	if errors.Is(err, jetstream.ErrKeyExists) || errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
		return 0, errLockUnsettled // read as ours at a revision the leader no longer has
	}
	return rev, err
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
