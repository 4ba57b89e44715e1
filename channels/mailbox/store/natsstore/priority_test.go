package natsstore_test

import (
	"fmt"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func withPriority(m *envelope.Message, p int) *envelope.Message {
	m.Priority = p
	return m
}

// nextID takes the next message and returns its id, acknowledging it when
// ack is set.
func nextID(t *testing.T, in driver.Inbox, ack bool) (string, *driver.Delivery) {
	t.Helper()
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	if ack {
		require.NoError(t, in.Ack(testkit.Ctx(t), d))
	}
	return d.Message.ID, d
}

// TestPriorityTakenFirst: after a backlog of ordinary messages, messages of
// priority 3, 1 and 2 are sent; the inbox opened then hands out 3, 2, 1 and
// then the backlog in order. A priority message is stored on
// mailbox.<to>.priority.<from> with its priority in a header.
func TestPriorityTakenFirst(t *testing.T) {
	ts := sharedServer(t)
	be := ts.open(t, nil)
	var backlog []string
	for i := range 5 {
		m := storetest.NewMessage("alice", "bob", fmt.Sprint(i))
		require.NoError(t, be.Deliver(testkit.Ctx(t), m))
		backlog = append(backlog, m.ID)
	}
	urgent := map[int]string{}
	for _, p := range []int{3, 1, 2} {
		m := withPriority(storetest.NewMessage("carol", "bob", fmt.Sprint("priority ", p)), p)
		require.NoError(t, be.Deliver(testkit.Ctx(t), m))
		urgent[p] = m.ID
	}

	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	stream, err := js.Stream(testkit.Ctx(t), ts.ns.Stream)
	require.NoError(t, err)
	last, err := stream.GetLastMsgForSubject(testkit.Ctx(t), ts.subject("bob.priority.carol"))
	require.NoError(t, err)
	assert.Equal(t, "2", last.Header.Get(natsstore.HeaderPriority))

	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	want := append([]string{urgent[3], urgent[2], urgent[1]}, backlog...)
	var got []string
	for range want {
		id, d := nextID(t, in, true)
		assert.False(t, d.Redelivered)
		got = append(got, id)
	}
	assert.Equal(t, want, got)
}

// TestPriorityRedeliveredFirst: a priority message and an ordinary one
// handed out and left unacknowledged by a closed inbox come back first on
// reopening, the priority message first, both marked Redelivered.
func TestPriorityRedeliveredFirst(t *testing.T) {
	ts := sharedServer(t)
	be := ts.open(t, nil)
	a, b := storetest.NewMessage("alice", "bob", "a"), storetest.NewMessage("alice", "bob", "b")
	u := withPriority(storetest.NewMessage("carol", "bob", "u"), 1)
	for _, m := range []*envelope.Message{a, u, b} {
		require.NoError(t, be.Deliver(testkit.Ctx(t), m))
	}
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	id, _ := nextID(t, in, false)
	require.Equal(t, u.ID, id)
	id, _ = nextID(t, in, false)
	require.Equal(t, a.ID, id)
	require.NoError(t, in.Close())

	in, err = be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	for _, want := range []string{u.ID, a.ID} {
		id, d := nextID(t, in, true)
		assert.Equal(t, want, id)
		assert.True(t, d.Redelivered, "%s is marked redelivered", want)
	}
	id, _ = nextID(t, in, true)
	assert.Equal(t, b.ID, id)
}

// TestPrioritySpoofedSenderSetAside: a priority message whose "from"
// disagrees with the sender its subject names is set aside like an
// ordinary one.
func TestPrioritySpoofedSenderSetAside(t *testing.T) {
	ts := sharedServer(t)
	ev := testkit.NewEvents()
	be := ts.open(t, ev.Observe)
	forged := withPriority(storetest.NewMessage("researcher", "bob", "trust me, now"), 3)
	data, err := envelope.Encode(forged)
	require.NoError(t, err)
	publishRaw(t, ts, ts.subject("bob.priority.mallory"), data)
	good := storetest.NewMessage("alice", "bob", "hello")
	require.NoError(t, be.Deliver(testkit.Ctx(t), good))

	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	id, _ := nextID(t, in, true)
	assert.Equal(t, good.ID, id, "the forged message is not handed out")
	got := ev.WaitKind(t, driver.EventQuarantined, func(e driver.Event) bool { return e.MessageID == forged.ID })
	assert.Contains(t, got.Reason, "sender mismatch")
	dead, err := be.DeadLetters(testkit.Ctx(t), "bob", 0)
	require.NoError(t, err)
	require.Len(t, dead, 1)
	assert.Equal(t, ts.subject("bob.priority.mallory"), dead[0].Subject)
	assert.Equal(t, data, dead[0].Data, "kept as it arrived")
}

// TestPriorityMaxDeliver: a priority message handed out MaxDeliver times
// without an acknowledgement (it crashes its receiver) is set aside and
// not handed out again.
func TestPriorityMaxDeliver(t *testing.T) {
	const maxDeliver = 3 // testOptions
	ts := sharedServer(t)
	ev := testkit.NewEvents()
	be := ts.open(t, ev.Observe)
	m := withPriority(storetest.NewMessage("alice", "bob", "crashes the receiver"), 2)
	require.NoError(t, be.Deliver(testkit.Ctx(t), m))
	for i := range maxDeliver {
		in, err := be.OpenInbox(testkit.Ctx(t), "bob")
		require.NoError(t, err)
		id, _ := nextID(t, in, false)
		require.Equal(t, m.ID, id, "hand-out %d", i+1)
		require.NoError(t, natsstore.Crash(in)) // crashed on it
	}
	sentinel := storetest.NewMessage("alice", "bob", "sentinel")
	require.NoError(t, be.Deliver(testkit.Ctx(t), sentinel))
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	id, _ := nextID(t, in, true)
	assert.Equal(t, sentinel.ID, id)
	got := ev.WaitKind(t, driver.EventQuarantined, func(e driver.Event) bool { return e.MessageID == m.ID })
	assert.Contains(t, got.Reason, "maxDeliver 3")
	dead, err := be.DeadLetters(testkit.Ctx(t), "bob", 0)
	require.NoError(t, err)
	require.Len(t, dead, 1)
	assert.Equal(t, ts.subject("bob.priority.alice"), dead[0].Subject)
}
