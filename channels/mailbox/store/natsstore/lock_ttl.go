package natsstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// lockTTLs is how long this store's inbox locks live: the lock bucket
// keeps the TTL it was made with, whatever lockTtl says now.
type lockTTLs struct {
	// renew is the TTL the locks are renewed by (at half of it): the
	// lower of lockTtl and the bucket's TTL, so that a lock is renewed
	// before the bucket lets it expire.
	renew time.Duration
	// expiry is how long after its last renewal a lock expires: the
	// bucket's TTL; 0 when the bucket has none (a lock stays until
	// released).
	expiry time.Duration
}

// lockTTLCache holds the lock bucket's TTLs once read; a raise of the
// bucket's TTL (see Store.readLockTTLs) changes them when it lands.
type lockTTLCache struct {
	mu   sync.Mutex
	read bool
	ttls lockTTLs
	// raising runs the raise; closing the store cancels it (stop), and
	// none starts once stopped.
	raising sync.WaitGroup
	cancel  context.CancelFunc
	stopped bool
}

// stop cancels a raise under way and waits for it.
func (c *lockTTLCache) stop() {
	c.mu.Lock()
	if c.cancel != nil {
		c.cancel()
	}
	c.stopped = true
	c.mu.Unlock()
	c.raising.Wait()
}

// get returns the TTLs as they are now.
func (c *lockTTLCache) get() lockTTLs {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ttls
}

// readLockTTLs reads the lock bucket's TTL when the first inbox is locked,
// and keeps it. A bucket made with a shorter TTL than lockTtl asks for
// (before lockTtl was raised, or by an older switchboard, whose default
// was 15 s) is raised to it in the background, unless the store may not
// change it (NoCreate): until that lands, and for good when the server
// refuses it (credentials without the permission), the locks are renewed
// by the bucket's TTL. Raising it is safe for the processes already
// running: they renew by their own shorter TTL, more often than needed. A
// longer TTL in the bucket is left as it is: lowering it would let the
// locks of those processes expire between their renewals.
func (s *Store) readLockTTLs(ctx context.Context) (*lockTTLCache, error) {
	c := &s.lockTTL
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.read {
		return c, nil
	}
	st, err := s.locks.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the TTL of lock bucket %s: %w", s.opts.LockBucket, err)
	}
	want, have := s.opts.LockTTL, st.TTL()
	switch {
	case have == 0:
		s.opts.Logger.Warn("the lock bucket has no TTL: the inbox lock of a process killed on another machine stays until removed by hand",
			"bucket", s.opts.LockBucket, "lockTtl", want)
		c.ttls, c.read = lockTTLs{renew: want}, true
		return c, nil
	case have < want && !s.opts.NoCreate && !c.stopped:
		var raise context.Context
		raise, c.cancel = context.WithTimeout(context.Background(), requestTimeout)
		c.raising.Go(func() { s.raiseLockTTL(raise, st, want) })
	}
	c.ttls, c.read = lockTTLs{renew: min(want, have), expiry: have}, true
	return c, nil
}

// raiseLockTTL sets the lock bucket's TTL (its stream's MaxAge) to ttl,
// keeping the rest of its configuration, and then renews the locks by it.
// ctx bounds the wait: a server that refuses the change (the credentials
// may not) does not answer.
func (s *Store) raiseLockTTL(ctx context.Context, st jetstream.KeyValueStatus, ttl time.Duration) {
	err := errors.New("the bucket's stream configuration is unknown")
	if bs, ok := st.(*jetstream.KeyValueBucketStatus); ok && bs.StreamInfo() != nil {
		cfg := bs.StreamInfo().Config
		cfg.MaxAge = ttl
		_, err = s.js.UpdateStream(ctx, cfg)
	}
	if errors.Is(err, context.Canceled) {
		return // the store closed
	}
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			if last := s.nc.LastError(); last != nil {
				err = fmt.Errorf("%w (%v)", err, last)
			}
		}
		s.opts.Logger.Warn("the lock bucket keeps its shorter TTL, which the inbox locks are renewed by; "+
			"an administrator can raise it (nats stream edit KV_"+s.opts.LockBucket+" --max-age), or lockTtl be lowered",
			"bucket", s.opts.LockBucket, "ttl", st.TTL(), "lockTtl", ttl, "err", err)
		return
	}
	s.lockTTL.mu.Lock()
	s.lockTTL.ttls = lockTTLs{renew: ttl, expiry: ttl}
	s.lockTTL.mu.Unlock()
	s.opts.Logger.Info("raised the lock bucket's TTL to lockTtl", "bucket", s.opts.LockBucket, "from", st.TTL(), "to", ttl)
}
