package natsstore_test

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/natsstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// streamNames lists the streams on the server (buckets included).
func streamNames(t *testing.T, ts *testServer) []string {
	t.Helper()
	js, err := jetstream.New(ts.Connect(t))
	require.NoError(t, err)
	ctx := testkit.Ctx(t)
	var names []string
	lister := js.StreamNames(ctx)
	for n := range lister.Name() {
		names = append(names, n)
	}
	require.NoError(t, lister.Err())
	return names
}

// With NoCreate, Open on a server without the mailbox fails with
// driver.ErrNoStore and creates nothing; once the mailbox exists it opens
// it and reads it.
func TestOpenNoCreate(t *testing.T) {
	t.Parallel()
	ts := startServer(t, "") // it looks at every stream of the server
	ctx := testkit.Ctx(t)
	opts := ts.options(t, nil)
	opts.NoCreate = true
	_, err := natsstore.Open(ctx, opts)
	require.ErrorIs(t, err, driver.ErrNoStore)
	assert.Empty(t, streamNames(t, ts), "nothing created")

	_, err = ts.open(t, nil).UpdateCard(ctx, "coder", func(c *envelope.Card) { c.Status = envelope.StatusIdle })
	require.NoError(t, err)
	created := streamNames(t, ts)
	opts = ts.options(t, nil) // the failed Open closed its connection
	opts.NoCreate = true
	reader := openWith(t, opts)
	cards, err := reader.Cards(ctx)
	require.NoError(t, err)
	require.Len(t, cards, 1)
	assert.Equal(t, "coder", cards[0].AgentID)
	assert.ElementsMatch(t, created, streamNames(t, ts))
}

// Online lists the agents whose presence key lives: a heartbeat puts it,
// a card marked offline deletes it.
func TestOnline(t *testing.T) {
	ts := sharedServer(t)
	st := ts.open(t, nil)
	ctx := testkit.Ctx(t)
	online, err := st.Online(ctx)
	require.NoError(t, err)
	assert.Empty(t, online)

	for _, id := range []string{"critic", "coder"} {
		_, err := st.UpdateCard(ctx, id, func(c *envelope.Card) { c.Status = envelope.StatusIdle })
		require.NoError(t, err)
	}
	_, err = st.UpdateCard(ctx, "critic", func(c *envelope.Card) { c.CurrentTasks = []string{"t1"}; c.Status = envelope.StatusBusy })
	require.NoError(t, err)
	online, err = st.Online(ctx)
	require.NoError(t, err)
	require.Len(t, online, 2)
	assert.Equal(t, "coder", online[0].Agent)
	assert.Equal(t, envelope.StatusIdle, online[0].Status)
	assert.Equal(t, "critic", online[1].Agent)
	assert.Equal(t, envelope.StatusBusy, online[1].Status)
	assert.True(t, online[1].Online)
	assert.False(t, online[1].Heartbeat.IsZero())

	_, err = st.UpdateCard(ctx, "coder", func(c *envelope.Card) { c.Status = envelope.StatusOffline })
	require.NoError(t, err)
	online, err = st.Online(ctx)
	require.NoError(t, err)
	require.Len(t, online, 1)
	assert.Equal(t, "critic", online[0].Agent)
}
