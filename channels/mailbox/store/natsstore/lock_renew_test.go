package natsstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// lockTTL is the inbox lock TTL of these tests: short, so that they wait
// for a few of them.
const lockTTL = 2 * time.Second

// TestLockKeptThroughRenewals: a holder that runs keeps its inbox lock
// over several TTLs (it renews at half the TTL), renewing it all along,
// and no one else can open the inbox meanwhile.
func TestLockKeptThroughRenewals(t *testing.T) {
	ts := sharedServer(t)
	opts := ts.options(t, nil)
	opts.LockTTL = lockTTL
	holder, other := openWith(t, opts), ts.open(t, nil)
	locks := lockBucket(t, ts)

	in, err := holder.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	first, err := locks.Get(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	// Three TTLs pass on the server's clock while the holder runs.
	timer := time.NewTimer(3 * lockTTL)
	<-timer.C
	_, err = other.OpenInbox(testkit.Ctx(t), "bob")
	require.ErrorIs(t, err, driver.ErrInboxBusy, "the holder kept its lock")
	now, err := locks.Get(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	assert.Equal(t, first.Value(), now.Value(), "the holder's own lock")
	assert.Greater(t, now.Revision(), first.Revision()+1, "renewed more than once")
}

// TestLockOfKilledHolderExpires: the lock of a holder that stops at once
// (its connection gone, as when its process is killed, and on a host
// whose processes this one cannot check) is free again once its TTL ran
// out after the last renewal; until then the inbox is busy.
func TestLockOfKilledHolderExpires(t *testing.T) {
	ts := sharedServer(t)
	opts := ts.options(t, nil)
	opts.LockTTL = lockTTL
	nc := opts.Conn
	holder, other := openWith(t, opts), ts.open(t, nil)
	in, err := holder.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	_, err = other.OpenInbox(testkit.Ctx(t), "bob")
	require.ErrorIs(t, err, driver.ErrInboxBusy, "held")

	nc.Close() // the holder is gone without releasing its lock
	killed := time.Now()
	ctx := testkit.CtxFor(t, lockTTL)
	for {
		in2, err := other.OpenInbox(ctx, "bob")
		if err == nil {
			t.Logf("taken over %s after the holder stopped (TTL %s)", time.Since(killed).Round(time.Millisecond), lockTTL)
			require.NoError(t, in2.Close())
			return
		}
		require.ErrorIs(t, err, driver.ErrInboxBusy)
		select {
		case <-ctx.Done():
			t.Fatalf("the lock of a stopped holder did not expire: %v", err)
		case <-time.After(lockTTL / 10):
		}
	}
}

// TestLockKeptAcrossServerRestart: a server that is down while a renewal
// is due (the renewal fails and is tried again) and comes back leaves the
// lock with its holder, which renews it again; the inbox is busy for
// anyone else until the holder closes it.
func TestLockKeptAcrossServerRestart(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "")
	opts := ts.options(t, nil)
	opts.LockTTL = lockTTL
	holder := openWith(t, opts)
	in, err := holder.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	locks := lockBucket(t, ts)
	before, err := locks.Get(testkit.Ctx(t), "bob")
	require.NoError(t, err)

	ts.Stop()
	timer := time.NewTimer(lockTTL * 6 / 10) // a renewal falls due while the server is down
	<-timer.C
	require.NoError(t, ts.Launch())

	// The holder renews its lock once the server is back.
	w, err := locks.Watch(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer w.Stop()
	renewed := false
	for e := range w.Updates() {
		if e != nil && e.Operation() == jetstream.KeyValuePut && e.Revision() > before.Revision() {
			assert.Equal(t, before.Value(), e.Value(), "the holder's lock")
			renewed = true
			break
		}
	}
	require.True(t, renewed, "the holder renewed its lock after the restart")
	other := ts.open(t, nil)
	_, err = other.OpenInbox(testkit.Ctx(t), "bob")
	require.ErrorIs(t, err, driver.ErrInboxBusy, "still held after the restart")
	require.NoError(t, in.Close())
	in2, err := other.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err, "free once closed")
	require.NoError(t, in2.Close())
}

// lockBucket is the lock bucket of ts's store, on a connection of its own.
func lockBucket(t *testing.T, ts *testServer) jetstream.KeyValue {
	t.Helper()
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	locks, err := js.KeyValue(ctx, ts.ns.LockBucket)
	require.NoError(t, err)
	return locks
}

// staleKV is a bucket whose reads lag, as a cluster's replica that has
// not yet applied the last write serves them: its next Get returns was
// (nil: the key is gone), whatever the leader holds.
type staleKV struct {
	jetstream.KeyValue
	stale int
	was   jetstream.KeyValueEntry
}

func (kv *staleKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	if kv.stale > 0 {
		kv.stale--
		if kv.was == nil {
			return nil, jetstream.ErrKeyNotFound
		}
		return kv.was, nil
	}
	return kv.KeyValue.Get(ctx, key)
}

// staleLockVal is the value of the locks the stale-read tests hold.
var staleLockVal = []byte(`{"pid":1,"host":"elsewhere"}`)

// createdLock makes the buckets and creates the lock key with
// staleLockVal, and returns the bucket and the lock's revision.
func createdLock(t *testing.T, key string) (jetstream.KeyValue, uint64) {
	t.Helper()
	ts := sharedServer(t)
	ts.open(t, nil) // makes the buckets
	locks := lockBucket(t, ts)
	rev, err := locks.Create(testkit.Ctx(t), key, staleLockVal)
	require.NoError(t, err)
	return locks, rev
}

// renewTwice renews the lock key, seen at rev, through kv (whose first
// read is stale): the first renewal fails and is tried again soon, the
// second works, and the holder knows the lock's revision after it.
func renewTwice(t *testing.T, kv *staleKV, key string, rev uint64) (uint64, jetstream.KeyValueEntry) {
	t.Helper()
	got, next, err := natsstore.RenewLock(testkit.Ctx(t), kv, key, staleLockVal, rev, lockTTL)
	require.Error(t, err)
	assert.NotErrorIs(t, err, jetstream.ErrKeyRevisionMismatch, "not a lock another owner holds")
	assert.Equal(t, lockTTL/10, next, "tried again soon")
	assert.Equal(t, rev, got)

	got, next, err = natsstore.RenewLock(testkit.Ctx(t), kv, key, staleLockVal, got, lockTTL)
	require.NoError(t, err)
	assert.Equal(t, lockTTL/2, next)
	e, err := kv.KeyValue.Get(testkit.Ctx(t), key)
	require.NoError(t, err)
	assert.Equal(t, e.Revision(), got, "the holder knows the lock's revision again")
	assert.Equal(t, staleLockVal, e.Value())
	return got, e
}

// TestLockRenewalAfterAStaleRead: a renewal the server took but whose
// answer the holder missed leaves the holder a revision behind; when the
// read that should find the lock at its new revision is served stale (the
// key "gone") and creating the key again finds it there, the renewal is
// tried again soon (not left for a whole period, as a lock another took
// would be), and the next finds the lock the holder's and renews it.
func TestLockRenewalAfterAStaleRead(t *testing.T) {
	locks, seen := createdLock(t, "stale-read")
	rev, err := locks.Update(testkit.Ctx(t), "stale-read", staleLockVal, seen) // the renewal whose answer was lost
	require.NoError(t, err)
	got, _ := renewTwice(t, &staleKV{KeyValue: locks, stale: 1}, "stale-read", seen)
	assert.Greater(t, got, rev)
}

// TestLockRenewalAfterItExpired: a holder whose lock expired (its
// renewals late) reads it, from a replica behind, as still its own at the
// revision it knew; the leader refuses that revision. The renewal is tried
// again soon, and the next takes the lock again (no one else did).
func TestLockRenewalAfterItExpired(t *testing.T) {
	locks, rev := createdLock(t, "expired")
	was, err := locks.Get(testkit.Ctx(t), "expired")
	require.NoError(t, err)
	require.NoError(t, locks.Delete(testkit.Ctx(t), "expired")) // as its TTL would
	renewTwice(t, &staleKV{KeyValue: locks, stale: 1, was: was}, "expired", rev)
}

// The next renewal after one that worked is half the TTL from when it
// began, however long it took; after one that timed out or failed, a
// tenth of the TTL from when it ended, not at once, so that a busy server
// is not asked again while it still works on the last; after one that
// found the lock another's, a whole period.
func TestRenewalDelay(t *testing.T) {
	t.Parallel()
	ttl := 15 * time.Second
	for _, c := range []struct {
		err  error
		took time.Duration
		want time.Duration
	}{
		{nil, 0, 7500 * time.Millisecond},
		{nil, 2 * time.Second, 5500 * time.Millisecond},
		{nil, 9 * time.Second, 0},
		{context.DeadlineExceeded, 5 * time.Second, 1500 * time.Millisecond},
		{fmt.Errorf("renew inbox lock: %w", nats.ErrTimeout), 10 * time.Second, 1500 * time.Millisecond},
		{fmt.Errorf("renew inbox lock: %w", jetstream.ErrKeyRevisionMismatch), time.Second, 6500 * time.Millisecond},
	} {
		assert.Equal(t, c.want, natsstore.RenewalDelay(c.err, ttl, c.took), "%v after %v", c.err, c.took)
	}
}
