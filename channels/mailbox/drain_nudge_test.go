package mailbox_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// startOnMemory starts agent w on a memory store, which nudges (see
// store.WatchDrainRequests), with heartbeats every beat seconds.
func startOnMemory(t *testing.T, st *store.Store, beat float64) *mailbox.Channel {
	t.Helper()
	cfg := mailbox.DefaultConfig()
	cfg.AgentID, cfg.MailboxesRoot, cfg.Fsync = "w", t.TempDir(), false
	cfg.HeartbeatInterval, cfg.OfflineAfter = beat, 2*beat+60
	b := bus.New(64)
	ch, err := mailbox.New(cfg, b, mailbox.Options{Backend: st})
	require.NoError(t, err)
	require.NoError(t, ch.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
		defer cancel()
		_ = ch.Stop(ctx)
		b.Close()
	})
	return ch
}

// A store that nudges the agent (the memory store here, NATS in
// production) makes a drain request heeded at once, without a heartbeat:
// with an hour between heartbeats, nothing but the nudge can have told
// the agent.
func TestDrainRequestNudged(t *testing.T) {
	t.Parallel()
	st := store.New(memstore.New(memstore.Options{}), nil)
	require.True(t, st.Has(store.CanNudge))
	w := startOnMemory(t, st, 3600)
	ctx := context.Background()
	require.NoError(t, st.RequestDrain(ctx, "w", store.DrainRequest{At: time.Now().Add(-time.Hour), By: "operator"}))
	require.NoError(t, st.RequestDrain(ctx, "w", store.DrainRequest{At: time.Now(), By: "operator"}))
	testkit.Closed(t, w.WorkDrained(), "drained at the nudge")
	card, err := st.Card(ctx, "w")
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusDraining, card.Status)
}

// A drain request that came without a nudge (recorded by an older
// switchboard, or its nudge lost) is still found, at the rare reading
// the agent does anyway (every twelfth heartbeat), and a stale one is
// not heeded.
func TestDrainRequestWithoutNudge(t *testing.T) {
	t.Parallel()
	st := store.New(memstore.New(memstore.Options{}), nil)
	w := startOnMemory(t, st, 0.01)
	ctx := context.Background()
	record := func(at time.Time) {
		data, err := json.Marshal(store.DrainRequest{At: at, By: "operator"})
		require.NoError(t, err)
		require.NoError(t, st.SaveState(ctx, "w", store.DrainKey, data)) // no nudge
	}
	record(time.Now().Add(-time.Hour))
	record(time.Now())
	testkit.Closed(t, w.WorkDrained(), "drained at a reading without a nudge")
	assert.True(t, w.Draining())
}
