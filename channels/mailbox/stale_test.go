package mailbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/clock"
)

// A running agent marks offline, in the registry, a card whose heartbeat
// is older than offlineAfter and still says idle (its agent crashed), so
// that nanobot's readers see it offline; a card with a fresh heartbeat,
// and one that moved on meanwhile, are left alone.
func TestStaleCardsMarkedOffline(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	start := time.Now().Truncate(time.Second)
	clk := clock.NewManual(start)
	put := func(id string, heartbeat time.Time) {
		_, err := e.store.UpdateCard(context.Background(), id, func(c *envelope.Card) {
			*c = envelope.Card{AgentID: id, Status: envelope.StatusIdle, MaxConcurrentTasks: 1,
				CurrentTasks: []string{}, RegisteredAt: envelope.NewTime(start.Add(-time.Hour)),
				LastHeartbeat: envelope.NewTime(heartbeat)}
		})
		require.NoError(t, err)
	}
	put("crashed", start.Add(-time.Minute))
	put("alive", start)
	cfg := e.config("boss")
	cfg.HeartbeatInterval, cfg.OfflineAfter = 5, 30
	e.start(t, cfg, mailbox.Options{Clock: clk})

	put("alive", start.Add(29*time.Second)) // it beats on its own
	clk.Add(30 * time.Second)
	e.waitCard(t, "crashed", "marked offline", func(c envelope.Card) bool { return c.Status == envelope.StatusOffline })
	assert.Equal(t, envelope.StatusIdle, e.card(t, "alive").Status, "a fresh heartbeat is not overwritten")
	assert.True(t, e.card(t, "crashed").LastHeartbeat.Equal(start.Add(-time.Minute)), "only the status changes")
}
