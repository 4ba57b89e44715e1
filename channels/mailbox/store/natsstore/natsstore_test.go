package natsstore_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestSpoofedSenderSetAside: a message whose "from" is not the sender the
// subject names (the identity the server's permissions vouch for) is set
// aside, and the dead letter says why.
func TestSpoofedSenderSetAside(t *testing.T) {
	ts := sharedServer(t)
	ev := testkit.NewEvents()
	be := ts.open(t, ev.Observe)
	forged := storetest.NewMessage("researcher", "bob", "trust me")
	data, err := envelope.Encode(forged)
	require.NoError(t, err)
	publishRaw(t, ts, ts.subject("bob.inbox.mallory"), data)
	good := storetest.NewMessage("alice", "bob", "hello")
	require.NoError(t, be.Deliver(testkit.Ctx(t), good))

	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, good.ID, d.Message.ID, "the forged message is not handed out")
	got := ev.WaitKind(t, driver.EventQuarantined, func(e driver.Event) bool { return e.MessageID == forged.ID })
	assert.Contains(t, got.Reason, "sender mismatch")

	dead, err := be.DeadLetters(testkit.Ctx(t), "bob", 0)
	require.NoError(t, err)
	require.Len(t, dead, 1)
	assert.Contains(t, dead[0].Reason, `published as "mallory"`)
	assert.Equal(t, ts.subject("bob.inbox.mallory"), dead[0].Subject)
	assert.Equal(t, data, dead[0].Data, "kept as it arrived")
}

// TestAgentIDsThatAreNotSubjectTokens: ids with '.' or non-ASCII letters
// get subjects, consumers and keys of their own.
func TestAgentIDsThatAreNotSubjectTokens(t *testing.T) {
	ts := sharedServer(t)
	be := ts.open(t, nil)
	ids := []string{"team.lead", "team", "données", "a_b-c"}
	for _, to := range ids {
		m := storetest.NewMessage("team.lead", to, "for "+to)
		require.NoError(t, be.Deliver(testkit.Ctx(t), m))
		_, err := be.UpdateCard(testkit.Ctx(t), to, func(c *envelope.Card) { c.Description = to })
		require.NoError(t, err)
	}
	for _, to := range ids {
		in, err := be.OpenInbox(testkit.Ctx(t), to)
		require.NoError(t, err)
		d, err := in.Next(testkit.Ctx(t))
		require.NoError(t, err)
		assert.Equal(t, "for "+to, d.Message.Text())
		require.NoError(t, in.Ack(testkit.Ctx(t), d))
		require.NoError(t, in.Close())
	}
	cards, err := be.Cards(testkit.Ctx(t))
	require.NoError(t, err)
	var got []string
	for _, c := range cards {
		got = append(got, c.AgentID)
	}
	assert.Equal(t, []string{"a_b-c", "données", "team", "team.lead"}, got)
}

// TestLockOfDeadProcessTakenOver: an inbox lock left by a process of this
// host that no longer runs does not block the next owner; one held by a
// live process elsewhere does, naming it.
func TestLockOfDeadProcessTakenOver(t *testing.T) {
	ts := sharedServer(t)
	be := ts.open(t, nil)
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	locks, err := js.KeyValue(testkit.Ctx(t), ts.ns.LockBucket)
	require.NoError(t, err)

	gone := exec.Command("true")
	require.NoError(t, gone.Run())
	host, _ := os.Hostname()
	put := func(agent string, pid int, host string) {
		v, _ := json.Marshal(map[string]any{"pid": pid, "host": host})
		_, err := locks.Put(testkit.Ctx(t), agent, v)
		require.NoError(t, err)
	}
	put("bob", gone.Process.Pid, host)
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err, "the dead process's lock is taken over")
	require.NoError(t, in.Close())

	put("carol", 1, "another-machine")
	_, err = be.OpenInbox(testkit.Ctx(t), "carol")
	require.ErrorIs(t, err, driver.ErrInboxBusy)
	assert.Contains(t, err.Error(), "process 1 on another-machine")
}

// TestLongTaskNotRedelivered: a message handed out and not acknowledged
// for longer than AckWait is kept claimed (the inbox reports progress), so
// it is not handed out twice.
func TestLongTaskNotRedelivered(t *testing.T) {
	ts := sharedServer(t)
	opts := ts.options(t, nil)
	opts.AckWait = testkit.Scaled(time.Second) // see TestQueuedNotRedelivered
	be := openWith(t, opts)
	m, sentinel := storetest.NewMessage("alice", "bob", "long"), storetest.NewMessage("alice", "bob", "sentinel")
	require.NoError(t, be.Deliver(testkit.Ctx(t), m))
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	d, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	// Three AckWaits pass while the task runs: wait for them on the
	// server's clock by waiting for a message published after them.
	timer := time.NewTimer(3 * opts.AckWait)
	<-timer.C
	require.NoError(t, be.Deliver(testkit.Ctx(t), sentinel))
	next, err := in.Next(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, sentinel.ID, next.Message.ID, "the long task was not handed out again")
	require.NoError(t, in.Ack(testkit.Ctx(t), d))
}
