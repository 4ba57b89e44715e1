package natsstore_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"

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
	assert.Equal(t, map[string]int{"2": 1, "below-inbox": 2}, record,
		"2 counts this hand-out only (the first ended in a clean stop), the gone 1 is dropped")
}

// TestPulledAheadNeverCounts: the inbox pulls messages ahead of Next (up
// to Prefetch); a receiver killed with them in its queue has not handed
// them out, and however often that happens they are neither counted nor
// set aside, and each is handed out once and acknowledged. A message the
// receiver was handed and crashed on each time is set aside after
// MaxDeliver (3) hand-outs.
func TestPulledAheadNeverCounts(t *testing.T) {
	ts := sharedServer(t)
	ev := testkit.NewEvents()
	opts := ts.options(t, ev.Observe)
	opts.Prefetch = 8
	be := openWith(t, opts)
	poison := storetest.NewMessage("alice", "bob", "poison")
	require.NoError(t, be.Deliver(testkit.Ctx(t), poison))
	const behind = 20
	var want []string
	for i := range behind {
		m := storetest.NewMessage("carol", "bob", fmt.Sprint("innocent ", i))
		require.NoError(t, be.Deliver(testkit.Ctx(t), m))
		want = append(want, m.ID)
	}
	var got []string
	rounds := 0
	for len(got) < behind {
		rounds++
		require.Less(t, rounds, 3*behind, "the innocent messages keep coming")
		in, err := be.OpenInbox(testkit.Ctx(t), "bob")
		require.NoError(t, err)
		d, err := in.Next(testkit.Ctx(t))
		require.NoError(t, err)
		if d.Message.ID == poison.ID {
			require.LessOrEqual(t, rounds, 3, "the poison comes back until it has been handed out 3 times")
			d, err = in.Next(testkit.Ctx(t)) // crashed on after the next one, held too
			require.NoError(t, err)
		}
		require.NotContains(t, got, d.Message.ID, "an acknowledged message came back")
		require.NoError(t, in.Ack(testkit.Ctx(t), d))
		got = append(got, d.Message.ID)
		// Killed with the rest pulled ahead: never handed out.
		require.NoError(t, natsstore.Crash(in))
	}
	assert.Equal(t, want, got, "each innocent message handed out once, in order")
	set := ev.WaitKind(t, driver.EventQuarantined, func(e driver.Event) bool { return e.MessageID == poison.ID })
	assert.Equal(t, driver.MaxDeliverReason(3, 3), set.Reason)
	assert.Equal(t, 1, ev.CountKind(driver.EventQuarantined), "only the poison is set aside: %s", ev)
}

// TestAttemptsRecordOfAnotherStreamIsDropped: a record that names
// sequences beyond the stream's last (the stream was made again, its
// sequences started afresh) marks no new message redelivered nor counts
// it.
func TestAttemptsRecordOfAnotherStreamIsDropped(t *testing.T) {
	ts := sharedServer(t)
	be := ts.open(t, nil)
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	kv, err := js.KeyValue(testkit.Ctx(t), ts.ns.StateBucket)
	require.NoError(t, err)
	_, err = kv.Put(testkit.Ctx(t), "bob.-attempts", []byte(`{"1": 4, "below-inbox": 1000000, "below-priority": 1000000}`))
	require.NoError(t, err)
	m := storetest.NewMessage("alice", "bob", "new")
	require.NoError(t, be.Deliver(testkit.Ctx(t), m))
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	require.Equal(t, m.ID, d.Message.ID)
	assert.False(t, d.Redelivered, "a new message of the stream made again")
	assert.Equal(t, map[uint64]int{1: 1}, natsstore.Counted(in), "counted from its first hand-out")
}
