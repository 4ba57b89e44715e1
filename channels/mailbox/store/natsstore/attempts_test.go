package natsstore_test

import (
	"encoding/json"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
)

// TestAttemptsRecordDropsGoneMessages: the stored count of hand-outs of a
// message that has left the stream is dropped when the inbox reopens, so
// the record does not grow with every crash.
func TestAttemptsRecordDropsGoneMessages(t *testing.T) {
	ts := startServer(t, "")
	be := ts.open(t, nil)
	done, left := storetest.NewMessage("alice", "bob", "handled"), storetest.NewMessage("alice", "bob", "left")
	require.NoError(t, be.Deliver(waitCtx(t), done))
	require.NoError(t, be.Deliver(waitCtx(t), left))
	in, err := be.OpenInbox(waitCtx(t), "bob")
	require.NoError(t, err)
	d, err := in.Next(waitCtx(t))
	require.NoError(t, err)
	require.Equal(t, done.ID, d.Message.ID)
	require.NoError(t, in.Ack(waitCtx(t), d)) // sequence 1 leaves the stream
	_, err = in.Next(waitCtx(t))              // sequence 2 is handed out and left
	require.NoError(t, err)
	require.NoError(t, be.Close())

	js, err := jetstream.New(ts.connect(t))
	require.NoError(t, err)
	kv, err := js.KeyValue(waitCtx(t), "mailbox-state")
	require.NoError(t, err)
	_, err = kv.Put(waitCtx(t), "bob.-attempts", []byte(`{"1": 2}`)) // stale: 1 is gone
	require.NoError(t, err)

	be = ts.open(t, nil)
	in, err = be.OpenInbox(waitCtx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	d, err = in.Next(waitCtx(t))
	require.NoError(t, err)
	require.Equal(t, left.ID, d.Message.ID)
	assert.True(t, d.Redelivered)
	e, err := kv.Get(waitCtx(t), "bob.-attempts")
	require.NoError(t, err)
	var record map[string]int
	require.NoError(t, json.Unmarshal(e.Value(), &record))
	assert.Equal(t, map[string]int{"2": 2}, record, "the count of 2 is kept, the gone 1 dropped")
}
