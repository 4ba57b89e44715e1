package mailbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A drain request left from an earlier run is not heeded; one made while
// the agent runs is, at a heartbeat: the card says draining, a task is
// rejected saying so, and with no task in hand the drain ends at once.
func TestDrainRequestFromTheStore(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	require.NoError(t, e.st.RequestDrain(ctx, "w", store.DrainRequest{At: time.Now().Add(-time.Hour), By: "operator"}))
	w := e.startAgent(t, "w", func(c *mailbox.Config) { c.HeartbeatInterval, c.OfflineAfter = 0.02, 30 })
	for range 5 { // heartbeats, while the drain check ticks at the same pace
		e.store.cards.Take(t, "a heartbeat", func(c envelope.Card) bool { return c.AgentID == "w" })
	}
	assert.False(t, w.Draining(), "a request older than the run is stale")

	require.NoError(t, e.st.RequestDrain(ctx, "w", store.DrainRequest{At: time.Now(), By: "operator"}))
	testkit.Closed(t, w.WorkDrained(), "drained: no task was in hand")
	assert.True(t, w.Draining())
	card, err := e.st.Card(ctx, "w")
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusDraining, card.Status)
	assert.Equal(t, 0, card.FreeSlots())

	lead := e.peer(t, "lead")
	e.deliver(t, task("lead", "w", "t9", "sort 2 1"))
	up := lead.expectUpdate(t, "t9", envelope.StateRejected)
	assert.Equal(t, "draining: w finishes the tasks it has and takes no new ones", up.Task.Reason)
}
