package console_test

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/console"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestApprovalsLiveAndDecided: an approval an agent puts in the store is
// announced to an open page and in the state with what the page shows
// (kind, chat, deadline); an expired one is listed as expired, cannot be
// approved and is removed by a denial; a waiting one is approved once,
// as the operator, in the audit log.
func TestApprovalsLiveAndDecided(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	be := store.New(memstore.New(memstore.Options{}), nil)
	t.Cleanup(func() { be.Close() })
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	c, err := console.New(console.Config{Store: be, Token: token, ReadOpen: true, RegistryEvery: 10 * time.Millisecond,
		Now: func() time.Time { return now }})
	require.NoError(t, err)
	go func() { _ = c.Run(ctx) }()
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/events", nil)
	require.NoError(t, err)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	lines := bufio.NewScanner(res.Body)
	await := func(want string) {
		t.Helper()
		for lines.Scan() {
			if strings.Contains(lines.Text(), want) {
				return
			}
		}
		t.Fatalf("the event stream ended before %q: %v", want, lines.Err())
	}
	await("event: ready")

	var ab agent.ApprovalBook = be.Approvals()
	waiting := agent.Approval{ID: envelope.NewID(), Agent: "ops", Kind: "tool", Action: "run tool deploy", Detail: `{"env":"prod"}`,
		Channel: "feishu", ChatID: "oc_1", Created: now.Add(-time.Minute), Deadline: now.Add(time.Minute)}
	expired := agent.Approval{ID: envelope.NewID(), Agent: "gone", Kind: "task", Action: "work on a task from lead",
		Detail: "release 1.2", Created: now.Add(-time.Hour), Deadline: now.Add(-50 * time.Minute)}
	require.NoError(t, ab.PutApproval(ctx, expired))
	require.NoError(t, ab.PutApproval(ctx, waiting))
	await(`data: "approvals"`)

	st, err := c.State(ctx)
	require.NoError(t, err)
	require.Len(t, st.Approvals, 2)
	assert.Equal(t, console.Approval{ID: expired.ID, Agent: "gone", Kind: "task", Action: "work on a task from lead",
		Detail: "release 1.2", Created: expired.Created, Deadline: expired.Deadline, Expired: true}, st.Approvals[0])
	assert.Equal(t, console.Approval{ID: waiting.ID, Agent: "ops", Kind: "tool", Action: "run tool deploy",
		Detail: `{"env":"prod"}`, Chat: "feishu:oc_1", Created: waiting.Created, Deadline: waiting.Deadline}, st.Approvals[1])

	body := func(id string) string { return `{"id":"` + id + `"}` }
	assert.Equal(t, http.StatusConflict, post(t, srv, "/api/action/approve", body(expired.ID), nil), "an expired one is not approved")
	assert.Equal(t, http.StatusOK, post(t, srv, "/api/action/deny", body(expired.ID), nil), "denying removes it")
	_, err = ab.GetApproval(ctx, expired.ID)
	assert.ErrorIs(t, err, agent.ErrNoApproval, "removed")

	assert.Equal(t, http.StatusForbidden, post(t, srv, "/api/action/approve", body(waiting.ID), func(r *http.Request) {
		r.Header.Del(console.TokenHeader)
	}), "read-only")
	assert.Equal(t, http.StatusOK, post(t, srv, "/api/action/approve", body(waiting.ID), nil))
	assert.Equal(t, http.StatusConflict, post(t, srv, "/api/action/deny", body(waiting.ID), nil), "the first decision stands")
	got, err := ab.GetApproval(ctx, waiting.ID)
	require.NoError(t, err)
	require.NotNil(t, got.Decision)
	assert.True(t, got.Decision.Allow)
	assert.Equal(t, console.Operator, got.Decision.By)

	st, err = c.State(ctx)
	require.NoError(t, err)
	assert.Empty(t, st.Approvals)
	var decisions []string
	for _, ev := range st.Audit {
		if ev.Kind == store.EventApproval {
			assert.Equal(t, console.Operator, ev.From)
			decisions = append(decisions, ev.Agent+": "+ev.Reason)
		}
	}
	assert.Equal(t, []string{
		"gone: denied by operator: work on a task from lead (release 1.2) (expired: its agent no longer waited; removed)",
		`ops: approved by operator: run tool deploy ({"env":"prod"})`,
	}, decisions)
}
