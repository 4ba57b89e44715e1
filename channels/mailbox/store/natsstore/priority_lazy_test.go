package natsstore_test

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// hasConsumer reports whether stream has the durable consumer name.
func hasConsumer(t *testing.T, js jetstream.JetStream, stream, name string) bool {
	t.Helper()
	_, err := js.Consumer(testkit.Ctx(t), stream, name)
	if err == nil {
		return true
	}
	require.ErrorIs(t, err, jetstream.ErrConsumerNotFound)
	return false
}

// TestPriorityConsumerMadeWhenNeeded: an inbox opened without priority
// messages waiting has no priority consumer; the first priority message
// sent to it makes one, and is handed out before the ordinary messages
// sent after it. An inbox opened with a priority message waiting makes
// it at once and hands that message out first.
func TestPriorityConsumerMadeWhenNeeded(t *testing.T) {
	ts := sharedServer(t)
	be := ts.open(t, nil)
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)

	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	assert.True(t, hasConsumer(t, js, ts.ns.Stream, "inbox-bob"))
	assert.False(t, hasConsumer(t, js, ts.ns.Stream, "prio-bob"), "no priority message yet")

	ordinary := storetest.NewMessage("alice", "bob", "first")
	require.NoError(t, be.Deliver(testkit.Ctx(t), ordinary))
	id, _ := nextID(t, in, true)
	assert.Equal(t, ordinary.ID, id)

	urgent := withPriority(storetest.NewMessage("carol", "bob", "urgent"), 2)
	require.NoError(t, be.Deliver(testkit.Ctx(t), urgent))
	after := storetest.NewMessage("alice", "bob", "after")
	require.NoError(t, be.Deliver(testkit.Ctx(t), after))
	id, d := nextID(t, in, true)
	assert.Equal(t, urgent.ID, id, "not overtaken by the ordinary message sent after it")
	assert.Equal(t, 2, d.Message.Priority)
	id, _ = nextID(t, in, true)
	assert.Equal(t, after.ID, id)
	assert.True(t, hasConsumer(t, js, ts.ns.Stream, "prio-bob"), "made by the first priority message")

	waiting := withPriority(storetest.NewMessage("carol", "dave", "waiting"), 1)
	require.NoError(t, be.Deliver(testkit.Ctx(t), waiting))
	later := storetest.NewMessage("alice", "dave", "later")
	require.NoError(t, be.Deliver(testkit.Ctx(t), later))
	in2, err := be.OpenInbox(testkit.Ctx(t), "dave")
	require.NoError(t, err)
	defer in2.Close()
	assert.True(t, hasConsumer(t, js, ts.ns.Stream, "prio-dave"), "made at once: a priority message waits")
	id, _ = nextID(t, in2, true)
	assert.Equal(t, waiting.ID, id)
	id, _ = nextID(t, in2, true)
	assert.Equal(t, later.ID, id)
}

// TestPriorityFoundAfterReconnect: a priority message stored while the
// inbox's connection was down (so its subscription missed it) is found
// once the connection is back, and handed out.
func TestPriorityFoundAfterReconnect(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "")
	// The inbox's connection comes back slowly: the sender, connected
	// after the restart, publishes before it does (when the machine is
	// slow it may not, and the subscription sees the message: it is
	// handed out either way).
	opts := ts.options(t, nil)
	opts.Conn = ts.Connect(t, nats.ReconnectWait(2*time.Second))
	be := openWith(t, opts)
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()

	ts.Restart(t)
	sender := ts.open(t, nil)
	urgent := withPriority(storetest.NewMessage("carol", "bob", "urgent"), 3)
	require.NoError(t, sender.Deliver(testkit.Ctx(t), urgent))
	id, _ := nextID(t, in, true)
	assert.Equal(t, urgent.ID, id)
}

// TestPriorityConsumerAtOnceWithoutPermission: with testdata/agents.conf,
// coder may subscribe to its priority subjects and gets its priority
// consumer only when needed; researcher may not, and gets it at once (and
// its priority messages as before).
func TestPriorityConsumerAtOnceWithoutPermission(t *testing.T) {
	t.Parallel()
	url := startAgentsServer(t)
	adminConn, cfg := connectAs(t, url, "admin", "admin-secret")
	o := cfg.Options(adminConn)
	admin := openWith(t, o) // makes the stream and the buckets
	js, err := jetstream.New(adminConn)
	require.NoError(t, err)
	for _, agent := range []string{"coder", "researcher"} {
		nc, cfg := connectAs(t, url, agent, agent+"-secret")
		o := cfg.Options(nc)
		o.OwnConn = true
		in, err := openWith(t, o).OpenInbox(testkit.Ctx(t), agent)
		require.NoError(t, err, agent)
		defer in.Close()
		assert.Equal(t, agent == "researcher", hasConsumer(t, js, "MAILBOX", "prio-"+agent), agent)

		urgent := withPriority(storetest.NewMessage("admin", agent, "urgent"), 1)
		require.NoError(t, admin.Deliver(testkit.Ctx(t), urgent))
		id, _ := nextID(t, in, true)
		assert.Equal(t, urgent.ID, id, agent)
	}
}
