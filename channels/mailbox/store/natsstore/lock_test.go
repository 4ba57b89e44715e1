package natsstore_test

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestLockReleasedAtAnUnseenRevision: an inbox whose lock was renewed
// without the owner seeing the new revision (a renewal the server took
// after the client stopped waiting for its answer), or whose lock expired
// meanwhile, closes without an error, and the inbox can be opened again;
// a lock another owner took after it expired is left to that owner.
func TestLockReleasedAtAnUnseenRevision(t *testing.T) {
	ts := sharedServer(t)
	be := ts.open(t, nil)
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	locks, err := js.KeyValue(testkit.Ctx(t), ts.ns.LockBucket)
	require.NoError(t, err)

	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	e, err := locks.Get(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	_, err = locks.Put(testkit.Ctx(t), "bob", e.Value()) // the renewal it did not see
	require.NoError(t, err)
	require.NoError(t, in.Close())
	_, err = locks.Get(testkit.Ctx(t), "bob")
	require.ErrorIs(t, err, jetstream.ErrKeyNotFound, "released")

	in, err = be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err, "opened again")
	require.NoError(t, locks.Delete(testkit.Ctx(t), "bob")) // expired
	require.NoError(t, in.Close())

	in, err = be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	require.NoError(t, locks.Delete(testkit.Ctx(t), "bob"))
	other := []byte(`{"pid":1,"host":"another-machine"}`)
	_, err = locks.Create(testkit.Ctx(t), "bob", other) // taken after it expired
	require.NoError(t, err)
	require.NoError(t, in.Close())
	e, err = locks.Get(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	require.Equal(t, other, e.Value(), "the other owner's lock is kept")
}
