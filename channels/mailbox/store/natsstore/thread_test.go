package natsstore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/storetest"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// converse runs a short conversation between alice and bob, each with a
// store of its own: alice asks (expecting a reply) and bob answers; bob
// handles the question, alice has the answer handed out but not yet
// acknowledged. Then alice asks again, and nobody answers.
func converse(t *testing.T, ts *testServer) (ask, answer, again *envelope.Message) {
	t.Helper()
	alice, bob := ts.open(t, nil), ts.open(t, nil)
	ask = storetest.NewMessage("alice", "bob", "what is 2+2?")
	ask.ExpectsReply, ask.ThreadID = true, "th-1"
	require.NoError(t, alice.Deliver(testkit.Ctx(t), ask))
	bobIn, err := bob.OpenInbox(testkit.Ctx(t), "bob")
	require.NoError(t, err)
	t.Cleanup(func() { bobIn.Close() })
	d, err := bobIn.Next(testkit.Ctx(t))
	require.NoError(t, err)
	require.NoError(t, bobIn.Ack(testkit.Ctx(t), d))

	answer = storetest.NewMessage("bob", "alice", "4")
	answer.ReplyTo, answer.ThreadID = ask.ID, "th-1"
	require.NoError(t, bob.Deliver(testkit.Ctx(t), answer))
	aliceIn, err := alice.OpenInbox(testkit.Ctx(t), "alice")
	require.NoError(t, err)
	t.Cleanup(func() { aliceIn.Close() })
	d, err = aliceIn.Next(testkit.Ctx(t))
	require.NoError(t, err)
	require.Equal(t, answer.ID, d.Message.ID)

	again = storetest.NewMessage("alice", "bob", "and 3+3?")
	again.ExpectsReply = true
	require.NoError(t, alice.Deliver(testkit.Ctx(t), again))
	return ask, answer, again
}

// TestThreadOverNATS: view.Thread finds a conversation across two
// agents' mailboxes, in causal order, wherever its messages are.
func TestThreadOverNATS(t *testing.T) {
	ts := sharedServer(t)
	ask, answer, _ := converse(t, ts)
	reader := store.New(ts.open(t, nil), nil)
	for _, id := range []string{ask.ID, answer.ID} {
		thread, err := view.Thread(testkit.Ctx(t), reader, id)
		require.NoError(t, err)
		require.Len(t, thread, 2, "thread of %s", id)
		assert.Equal(t, ask.ID, thread[0].Message.ID)
		assert.Equal(t, "bob", thread[0].Agent)
		assert.Equal(t, driver.BoxProcessed, thread[0].Box)
		assert.Equal(t, 0, thread[0].Depth)
		assert.Equal(t, answer.ID, thread[1].Message.ID)
		assert.Equal(t, "alice", thread[1].Agent)
		assert.Equal(t, driver.BoxClaimed, thread[1].Box)
		assert.Equal(t, 1, thread[1].Depth)
	}
	_, err := view.Thread(testkit.Ctx(t), reader, "no-such-id")
	assert.ErrorIs(t, err, view.ErrNotFound)
}

// TestFindPendingOverNATS: the request bob answered is not pending, the
// one nobody answered is, for both agents.
func TestFindPendingOverNATS(t *testing.T) {
	ts := sharedServer(t)
	_, _, again := converse(t, ts)
	reader := store.New(ts.open(t, nil), nil)
	for _, agent := range []string{"", "alice", "bob"} {
		pending, err := view.FindPending(testkit.Ctx(t), reader, view.PendingFilter{Agent: agent})
		require.NoError(t, err)
		require.Len(t, pending, 1, "agent %q", agent)
		assert.Equal(t, again.ID, pending[0].MessageID)
		assert.Contains(t, []driver.Box{driver.BoxInbox, driver.BoxClaimed}, pending[0].Where.Box,
			"bob's inbox is open: the request may be pulled ahead")
	}
	pending, err := view.FindPending(testkit.Ctx(t), reader, view.PendingFilter{Agent: "carol"})
	require.NoError(t, err)
	assert.Empty(t, pending)
}
