package console_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestDrainAction: the console asks a running agent to drain (a request
// in the store its agent reads at its heartbeat); an offline agent, an
// unknown one and a bad id are refused, and nothing is asked of them.
func TestDrainAction(t *testing.T) {
	t.Parallel()
	_, be, srv := newConsole(t)
	ctx := testkit.Ctx(t)
	for id, status := range map[string]envelope.Status{"coder": envelope.StatusBusy, "gone": envelope.StatusOffline} {
		_, err := be.UpdateCard(ctx, id, func(c *envelope.Card) {
			c.Status, c.LastHeartbeat, c.MaxConcurrentTasks = status, envelope.NewTime(time.Now()), 2
			c.CurrentTasks = []string{"t1"}
		})
		require.NoError(t, err)
	}
	before := time.Now()
	assert.Equal(t, http.StatusOK, post(t, srv, "/api/action/drain", `{"agent":"coder"}`, nil))
	r, ok, err := be.DrainRequested(context.Background(), "coder")
	require.NoError(t, err)
	require.True(t, ok)
	assert.False(t, r.At.Before(before.Add(-time.Second)))
	assert.Equal(t, "operator", r.By)

	assert.Equal(t, http.StatusConflict, post(t, srv, "/api/action/drain", `{"agent":"gone"}`, nil), "offline: nothing to drain")
	assert.Equal(t, http.StatusBadRequest, post(t, srv, "/api/action/drain", `{"agent":"nobody"}`, nil))
	assert.Equal(t, http.StatusBadRequest, post(t, srv, "/api/action/drain", `{"agent":"../x"}`, nil))
	_, ok, err = be.DrainRequested(context.Background(), "gone")
	require.NoError(t, err)
	assert.False(t, ok)
}
