package natsstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
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
