package natsstore_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestWatchPresence: a heartbeat reports the agent online at once; a card
// marked offline reports it offline; and an agent that stops
// heartbeating is reported offline when its presence key expires.
func TestWatchPresence(t *testing.T) {
	ts := sharedServer(t)
	opts := ts.options(t, nil)
	opts.PresenceTTL = time.Second
	be := openWith(t, opts)
	events, err := be.WatchPresence(testkit.Ctx(t))
	require.NoError(t, err)
	next := func() driver.Presence {
		t.Helper()
		select {
		case p, ok := <-events:
			require.True(t, ok, "presence channel closed")
			return p
		case <-time.After(testkit.WaitLimit):
			t.Fatal("no presence change")
		}
		return driver.Presence{}
	}
	beat := func(id string, st envelope.Status) {
		_, err := be.UpdateCard(testkit.Ctx(t), id, func(c *envelope.Card) {
			c.Status, c.LastHeartbeat = st, envelope.NewTime(time.Now())
		})
		require.NoError(t, err)
	}

	beat("team.lead", envelope.StatusIdle)
	p := next()
	assert.Equal(t, driver.Presence{Agent: "team.lead", Online: true, Status: envelope.StatusIdle, Heartbeat: p.Heartbeat}, p)
	beat("team.lead", envelope.StatusOffline)
	assert.Equal(t, driver.Presence{Agent: "team.lead"}, next(), "stopped")

	beat("coder", envelope.StatusBusy)
	assert.True(t, next().Online)
	p = next() // no further heartbeat: the key expires
	assert.Equal(t, "coder", p.Agent)
	assert.False(t, p.Online, "expired")
}
