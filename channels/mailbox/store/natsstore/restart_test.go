package natsstore_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestServerRestartLosesNothing: every message whose Deliver returned nil
// survives a restart of the server (shut down, started again on the same
// folder), and no acknowledged message comes back. The receiver keeps its
// inbox open across the restart; its connection reconnects by itself.
func TestServerRestartLosesNothing(t *testing.T) {
	t.Parallel()
	const n = 60
	ts := startServer(t, "")
	be := ts.open(t, nil)
	var sent []*envelope.Message
	for i := range n {
		m := storetest.NewMessage("alice", "bob", fmt.Sprint(i))
		require.NoError(t, be.Deliver(testkit.Ctx(t), m))
		sent = append(sent, m)
	}
	in, err := be.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	for i := range n / 3 {
		d, err := in.Next(testkit.Ctx(t))
		require.NoError(t, err)
		require.Equal(t, sent[i].ID, d.Message.ID)
		require.NoError(t, in.Ack(testkit.Ctx(t), d))
	}
	held, err := in.Next(testkit.Ctx(t)) // handed out, acknowledged only after the restart
	require.NoError(t, err)
	require.Equal(t, sent[n/3].ID, held.Message.ID)

	ts.Restart(t)

	for i := n/3 + 1; i < n; i++ {
		d, err := in.Next(testkit.Ctx(t))
		require.NoError(t, err, "message %d after the restart", i)
		require.Equal(t, sent[i].ID, d.Message.ID, "message %d", i)
		require.NoError(t, in.Ack(testkit.Ctx(t), d))
	}
	require.NoError(t, in.Ack(testkit.Ctx(t), held), "a delivery from before the restart is acknowledged after it")
	require.NoError(t, in.Close())
	require.NoError(t, be.Close())

	ts.Restart(t)
	be2 := ts.open(t, nil)
	sentinel := storetest.NewMessage("alice", "bob", "sentinel")
	require.NoError(t, be2.Deliver(testkit.Ctx(t), sentinel))
	in2, err := be2.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in2.Close()
	d, err := in2.Next(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, sentinel.ID, d.Message.ID, "nothing acknowledged came back, nothing else was left")
}

// TestServerRestartKeepsUnreadMessages: messages delivered while no
// receiver runs survive a restart and arrive in order afterwards, with
// the registry and state.
func TestServerRestartKeepsUnreadMessages(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "")
	be := ts.open(t, nil)
	var ids []string
	for i := range 10 {
		m := storetest.NewMessage("alice", "bob", fmt.Sprint(i))
		require.NoError(t, be.Deliver(testkit.Ctx(t), m))
		ids = append(ids, m.ID)
	}
	_, err := be.UpdateCard(testkit.Ctx(t), "bob", func(c *envelope.Card) { c.Description = "kept" })
	require.NoError(t, err)
	require.NoError(t, store.New(be, nil).SaveState(testkit.Ctx(t), "bob", "sent-tasks", []byte("[1]")))
	require.NoError(t, be.Close())

	ts.Restart(t)
	be2 := ts.open(t, nil)
	card, err := be2.Card(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	assert.Equal(t, "kept", card.Description)
	st, err := store.New(be2, nil).LoadState(testkit.Ctx(t), "bob", "sent-tasks")
	require.NoError(t, err)
	assert.Equal(t, "[1]", string(st))
	in, err := be2.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	defer in.Close()
	for _, id := range ids {
		d, err := in.Next(testkit.Ctx(t))
		require.NoError(t, err)
		require.Equal(t, id, d.Message.ID)
		require.NoError(t, in.Ack(testkit.Ctx(t), d))
	}
}
