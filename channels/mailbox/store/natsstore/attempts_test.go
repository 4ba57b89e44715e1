package natsstore_test

import (
	"encoding/json"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestAttemptsRecordDropsGoneMessages: the stored count of hand-outs of a
// message that has left the stream is dropped when the inbox reopens, so
// the record does not grow with every crash.
func TestAttemptsRecordDropsGoneMessages(t *testing.T) {
	ts := sharedServer(t)
	be := ts.open(t, nil)
	done, left := storetest.NewMessage("alice", "bob", "handled"), storetest.NewMessage("alice", "bob", "left")
	require.NoError(t, be.Deliver(testkit.Ctx(t), done))
	require.NoError(t, be.Deliver(testkit.Ctx(t), left))
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	require.Equal(t, done.ID, d.Message.ID)
	require.NoError(t, in.Ack(testkit.Ctx(t), d)) // sequence 1 leaves the stream
	_, err = in.Next(testkit.Ctx(t))              // sequence 2 is handed out and left
	require.NoError(t, err)
	require.NoError(t, be.Close())

	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	kv, err := js.KeyValue(testkit.Ctx(t), ts.ns.StateBucket)
	require.NoError(t, err)
	_, err = kv.Put(testkit.Ctx(t), "bob.-attempts", []byte(`{"1": 2}`)) // stale: 1 is gone
	require.NoError(t, err)

	be = ts.open(t, nil)
	in, err = be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	d, err = in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	require.Equal(t, left.ID, d.Message.ID)
	assert.True(t, d.Redelivered)
	e, err := kv.Get(testkit.Ctx(t), "bob.-attempts")
	require.NoError(t, err)
	var record map[string]int
	require.NoError(t, json.Unmarshal(e.Value(), &record))
	assert.Equal(t, map[string]int{"2": 2}, record, "the count of 2 is kept, the gone 1 dropped")
}
