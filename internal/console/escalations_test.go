package console_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/console"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestEscalationsListedAndDecided: an escalation kept on the store is in
// the state; the escalation action decides it as the operator (a bad
// action is a 400, a second decision a 409, an unknown id a 404).
func TestEscalationsListedAndDecided(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	be := store.New(memstore.New(memstore.Options{}), nil)
	t.Cleanup(func() { be.Close() })
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	c, err := console.New(console.Config{Store: be, Token: token, ReadOpen: true, Now: func() time.Time { return now }})
	require.NoError(t, err)
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)

	e := store.Escalation{ID: "0196a1b2-0000-7000-8000-00000000000e", Agent: "alice", TaskID: "task_1", Trigger: "failed",
		Asked: "sort 5 3 9 1", Attempts: []store.Attempt{{Agent: "bob", Said: "failed"}}, Levels: []string{"human"},
		Since: now, Due: now.Add(time.Hour), Task: json.RawMessage(`{}`), Created: now}
	require.NoError(t, be.Escalations().Save(ctx, e))
	st, err := c.State(ctx)
	require.NoError(t, err)
	require.Len(t, st.Escalations, 1)
	assert.Equal(t, "human", st.Escalations[0].At())

	body := func(action, agent string) string {
		return `{"id":"` + e.ID + `","action":"` + action + `","agent":"` + agent + `","reason":"from the console"}`
	}
	assert.Equal(t, http.StatusBadRequest, post(t, srv, "/api/action/escalation", body("later", ""), nil))
	assert.Equal(t, http.StatusBadRequest, post(t, srv, "/api/action/escalation", body("reassign", ""), nil))
	assert.Equal(t, http.StatusNotFound, post(t, srv, "/api/action/escalation", `{"id":"nope","action":"retry"}`, nil))
	assert.Equal(t, http.StatusOK, post(t, srv, "/api/action/escalation", body("reassign", "erin"), nil))
	assert.Equal(t, http.StatusConflict, post(t, srv, "/api/action/escalation", body("cancel", ""), nil), "the first decision stands")
	got, err := be.Escalations().Get(ctx, e.ID)
	require.NoError(t, err)
	require.NotNil(t, got.Decision)
	assert.Equal(t, store.EscalationDecision{Action: "reassign", Agent: "erin", By: "operator", Level: "human",
		Reason: "from the console", Time: now}, *got.Decision)
}
