package natsstore_test

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// kvWrites counts the puts and deletes of one bucket, as the server
// routes them.
type kvWrites struct {
	nc  *nats.Conn
	sub *nats.Subscription // synchronous: the reader queues each write before the next PONG
	n   int64
}

func countWrites(t *testing.T, ts *testServer, bucket string) *kvWrites {
	t.Helper()
	w := &kvWrites{nc: ts.Connect(t)}
	var err error
	w.sub, err = w.nc.SubscribeSync("$KV." + bucket + ".>")
	require.NoError(t, err)
	require.NoError(t, w.nc.Flush())
	return w
}

// count is the number of writes so far that have arrived: after a flush,
// what is queued on the subscription is taken without waiting.
func (w *kvWrites) count(t *testing.T) int64 {
	t.Helper()
	require.NoError(t, w.nc.Flush())
	for {
		queued, _, err := w.sub.Pending()
		require.NoError(t, err)
		if queued == 0 {
			return w.n
		}
		_, err = w.sub.NextMsg(testkit.WaitLimit)
		require.NoError(t, err)
		w.n++
	}
}

// await waits until n writes have arrived (a write's copy to a plain
// subscriber may come after the put's answer) and returns the count then,
// which is more than n if more came.
func (w *kvWrites) await(t *testing.T, n int64) int64 {
	t.Helper()
	for w.count(t) < n {
		if _, err := w.sub.NextMsg(testkit.WaitLimit); err != nil {
			return w.n
		}
		w.n++
	}
	return w.n
}

// TestHeartbeatWritesOnlyWhenOld: heartbeats write neither the card nor
// the presence key until they are maxAge old, then both once; between
// writes each heartbeat returns the card with the new heartbeat, and the
// agent stays online for readers of presence and of the card.
func TestHeartbeatWritesOnlyWhenOld(t *testing.T) {
	ts := sharedServer(t)
	opts := ts.options(t, nil)
	opts.Agent = "coder"
	be := openWith(t, opts)
	cards, presence := countWrites(t, ts, ts.ns.RegistryBucket), countWrites(t, ts, ts.ns.PresenceBucket)
	base := time.Now()
	_, err := be.UpdateCard(testkit.Ctx(t), "coder", func(c *envelope.Card) {
		c.Status, c.LastHeartbeat = envelope.StatusIdle, envelope.NewTime(base)
	})
	require.NoError(t, err)
	require.Equal(t, int64(1), cards.await(t, 1))
	require.Equal(t, int64(1), presence.await(t, 1))

	const maxAge = 15 * time.Second
	offlineAfter := 30 * time.Second
	for _, at := range []time.Duration{5 * time.Second, 10 * time.Second, 14 * time.Second} {
		now := base.Add(at)
		card, err := be.Heartbeat(testkit.Ctx(t), "coder", now, maxAge)
		require.NoError(t, err)
		assert.Equal(t, now.UnixMilli(), card.LastHeartbeat.UnixMilli(), "the heartbeat at %s", at)
		assert.Equal(t, envelope.StatusIdle, card.Status)
		assert.Equal(t, int64(1), cards.count(t), "no card written at %s", at)
		assert.Equal(t, int64(1), presence.count(t), "no presence written at %s", at)
		stored, err := be.Card(testkit.Ctx(t), "coder")
		require.NoError(t, err)
		assert.NotEqual(t, envelope.StatusOffline, stored.EffectiveStatus(now, offlineAfter), "card readers see it online at %s", at)
		online, err := be.Online(testkit.Ctx(t))
		require.NoError(t, err)
		require.Len(t, online, 1, "online at %s", at)
	}

	now := base.Add(20 * time.Second)
	card, err := be.Heartbeat(testkit.Ctx(t), "coder", now, maxAge)
	require.NoError(t, err)
	assert.Equal(t, now.UnixMilli(), card.LastHeartbeat.UnixMilli())
	assert.Equal(t, int64(2), cards.await(t, 2), "the card renewed once it was older than maxAge")
	assert.Equal(t, int64(2), presence.await(t, 2), "the presence key with it")
	stored, err := be.Card(testkit.Ctx(t), "coder")
	require.NoError(t, err)
	assert.Equal(t, now.UnixMilli(), stored.LastHeartbeat.UnixMilli())
	online, err := be.Online(testkit.Ctx(t))
	require.NoError(t, err)
	require.Len(t, online, 1)
	assert.Equal(t, now.UnixMilli(), online[0].Heartbeat.UnixMilli())
}

// TestHeartbeatSeesCardChangedByAnother: a card another store marked
// offline meanwhile is returned as it is at the next renewal (so the
// mailbox writes it again), not overwritten by the heartbeat; an agent
// without a card is ErrUnknownAgent.
func TestHeartbeatSeesCardChangedByAnother(t *testing.T) {
	ts := sharedServer(t)
	opts := ts.options(t, nil)
	opts.Agent = "coder"
	be := openWith(t, opts)
	other := ts.open(t, nil)
	base := time.Now()
	_, err := be.Heartbeat(testkit.Ctx(t), "coder", base, time.Second)
	require.ErrorIs(t, err, driver.ErrUnknownAgent)
	_, err = be.UpdateCard(testkit.Ctx(t), "coder", func(c *envelope.Card) { c.LastHeartbeat = envelope.NewTime(base) })
	require.NoError(t, err)
	_, err = other.UpdateCard(testkit.Ctx(t), "coder", func(c *envelope.Card) { c.Status = envelope.StatusOffline })
	require.NoError(t, err)

	card, err := be.Heartbeat(testkit.Ctx(t), "coder", base.Add(20*time.Second), 15*time.Second)
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusOffline, card.Status, "the card as the other store left it")
	stored, err := be.Card(testkit.Ctx(t), "coder")
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusOffline, stored.Status, "not overwritten")
}

// TestDeadAgentGoesOfflineWithinOfflineAfter: an agent whose heartbeats
// write its presence key only every maxAge is reported offline once it
// stops beating, when the key expires offlineAfter after its last put.
func TestDeadAgentGoesOfflineWithinOfflineAfter(t *testing.T) {
	ts := sharedServer(t)
	opts := ts.options(t, nil)
	opts.Agent, opts.PresenceTTL = "coder", time.Second
	be := openWith(t, opts)
	events, err := be.WatchPresence(testkit.Ctx(t))
	require.NoError(t, err)
	now := time.Now()
	_, err = be.UpdateCard(testkit.Ctx(t), "coder", func(c *envelope.Card) { c.LastHeartbeat = envelope.NewTime(now) })
	require.NoError(t, err)
	for range 3 { // beats that write nothing
		now = now.Add(100 * time.Millisecond)
		_, err := be.Heartbeat(testkit.Ctx(t), "coder", now, 500*time.Millisecond)
		require.NoError(t, err)
	}
	var seen []driver.Presence
	for len(seen) < 2 {
		select {
		case p := <-events:
			seen = append(seen, p)
		case <-time.After(testkit.WaitLimit):
			t.Fatalf("presence changes: %v, want online then offline", seen)
		}
	}
	assert.True(t, seen[0].Online, "online")
	assert.Equal(t, driver.Presence{Agent: "coder"}, seen[1], "offline once the key expired")
}
