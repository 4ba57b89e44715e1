package natsstore

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Crash closes in, an Inbox of this store, as a receiver killed a while
// after its last hand-out leaves it: the record of hand-outs as its
// writer had written it by then, the hand-outs still held not released,
// so they count towards MaxDeliver.
func Crash(in driver.Inbox) error {
	i := in.(*Inbox)
	if err := i.rec.write(context.Background()); err != nil {
		return err
	}
	return i.close(false)
}

// Counted returns the hand-out counts of in's record, by stream sequence.
func Counted(in driver.Inbox) map[uint64]int { return in.(*Inbox).rec.counted() }

// RenewLock renews, once, the inbox lock named key that holds val and
// that its owner last saw at rev in kv, as an open inbox renews its own,
// and returns the revision the owner sees now, when the next renewal is
// due and the renewal's error.
func RenewLock(ctx context.Context, kv jetstream.KeyValue, key string, val []byte, rev uint64, ttl time.Duration) (uint64, time.Duration, error) {
	l := &inboxLock{kv: kv, key: key, val: val, rev: rev}
	err := l.renew(ctx)
	return l.rev, renewalDelay(err, ttl, 0), err
}

// NoneStored is the store's check that no state entry matches pattern.
func NoneStored(s *Store, ctx context.Context, pattern string) bool {
	return s.noneStored(ctx, pattern)
}

// Unanswered is the store's test of a request the server was too busy to
// answer, rather than one it refused.
var Unanswered = unanswered

// RenewalDelay is how long after a renewal that took took and ended with
// err an inbox renews its lock again.
var RenewalDelay = renewalDelay

// LockTTLs are the TTL in's lock is renewed by and the one it expires
// after.
func LockTTLs(in driver.Inbox) (renew, expiry time.Duration) {
	ttls := in.(*Inbox).lock.ttls.get()
	return ttls.renew, ttls.expiry
}
