package console_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/console"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

const token = "secret-token"

func newConsole(t *testing.T) (*console.Console, *store.Store, *httptest.Server) {
	t.Helper()
	be := store.New(memstore.New(memstore.Options{}), nil)
	t.Cleanup(func() { be.Close() })
	c, err := console.New(console.Config{Store: be, Token: token, ReadOpen: true})
	require.NoError(t, err)
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	return c, be, srv
}

func post(t *testing.T, srv *httptest.Server, path, body string, mod func(*http.Request)) int {
	t.Helper()
	req, err := http.NewRequestWithContext(testkit.Ctx(t), http.MethodPost, srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(console.TokenHeader, token)
	if mod != nil {
		mod(req)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	return res.StatusCode
}

// TestActionsNeedTokenPostJSONAndSameOrigin: no action by GET, none
// without the token, none from another site or as a form post.
func TestActionsNeedTokenPostJSONAndSameOrigin(t *testing.T) {
	t.Parallel()
	_, _, srv := newConsole(t)
	send := `{"to":"coder","text":"hi"}`
	res, err := http.Get(srv.URL + "/api/action/send")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusMethodNotAllowed, res.StatusCode, "no action by GET")
	assert.Equal(t, http.StatusForbidden, post(t, srv, "/api/action/send", send, func(r *http.Request) { r.Header.Del(console.TokenHeader) }))
	assert.Equal(t, http.StatusForbidden, post(t, srv, "/api/action/send", send, func(r *http.Request) { r.Header.Set(console.TokenHeader, "wrong") }))
	assert.Equal(t, http.StatusForbidden, post(t, srv, "/api/action/send", send, func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }))
	assert.Equal(t, http.StatusUnsupportedMediaType, post(t, srv, "/api/action/send", send, func(r *http.Request) {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}))
	assert.Equal(t, http.StatusBadRequest, post(t, srv, "/api/action/send", `{"to":"coder"}`, nil), "no text")
	assert.Equal(t, http.StatusNotFound, post(t, srv, "/api/action/nope", `{}`, nil))
	assert.Equal(t, http.StatusOK, post(t, srv, "/api/action/send", send, nil))
}

// TestStateAndOperatorActions: what the operator sends is in the state
// and in the audit log as the operator's; a task tree links a subtask
// delegated while working; a cancel reaches both sides; archive refuses
// while a reply is owed; there are no approvals.
func TestStateAndOperatorActions(t *testing.T) {
	t.Parallel()
	c, be, srv := newConsole(t)
	ctx := testkit.Ctx(t)
	t0 := time.Now().Add(-time.Minute)
	deliver := func(m *envelope.Message) { require.NoError(t, be.Deliver(ctx, m)) }
	task := func(id, from, to string, trace []string, at time.Duration) *envelope.Message {
		return &envelope.Message{ID: envelope.NewID(), From: from, To: to, Type: envelope.TypeTask, TTL: 2, Trace: trace,
			Timestamp: envelope.NewTime(t0.Add(at)), Task: &envelope.Task{ID: id, State: envelope.StatePending},
			Callback: &envelope.Callback{Channel: "feishu", ChatID: "c1"}, ExpectsReply: true}
	}
	root := task("t-root", "lead", "worker", []string{"lead"}, 0)
	deliver(root)
	deliver(task("t-sub", "worker", "tester", []string{"lead", "worker"}, time.Second))
	ask := &envelope.Message{ID: envelope.NewID(), From: "lead", To: "coder", Type: envelope.TypeMessage, TTL: 2,
		Trace: []string{"lead"}, Timestamp: envelope.NewTime(t0), ExpectsReply: true, Subject: "question",
		Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart("<script>alert(1)</script>")}}}
	deliver(ask)

	assert.Equal(t, http.StatusOK, post(t, srv, "/api/action/send", `{"to":"coder","text":"from the operator"}`, nil))
	assert.Equal(t, http.StatusConflict, post(t, srv, "/api/action/archive", `{"id":"`+ask.ID+`"}`, nil), "a reply is owed")
	assert.Equal(t, http.StatusOK, post(t, srv, "/api/action/cancel", `{"task_id":"t-sub"}`, nil))
	assert.Equal(t, http.StatusConflict, post(t, srv, "/api/action/cancel", `{"task_id":"t-sub"}`, nil), "ended already")
	assert.Equal(t, http.StatusNotFound, post(t, srv, "/api/action/approve", `{"id":"a1"}`, nil), "no approvals")

	st, err := c.State(ctx)
	require.NoError(t, err)
	require.Len(t, st.Tasks, 1)
	r := st.Tasks[0]
	assert.Equal(t, "t-root", r.ID)
	require.Len(t, r.Children, 1, "delegated while working on t-root")
	sub := r.Children[0]
	assert.Equal(t, envelope.StateCanceled, sub.State)
	assert.Equal(t, "feishu", sub.Origin.Channel)
	assert.Contains(t, r.Stuck, "not taken by worker yet")
	assert.Empty(t, st.Approvals)

	var texts []string
	for _, th := range st.Threads {
		for _, m := range th.Messages {
			texts = append(texts, m.From+": "+m.Text)
		}
	}
	assert.Contains(t, texts, "operator: from the operator")
	assert.Contains(t, texts, "lead: <script>alert(1)</script>", "the state carries text; the page shows it as text")
	var ops []string
	for _, ev := range st.Audit {
		if ev.Kind == store.EventOperator {
			assert.Equal(t, console.Operator, ev.Agent)
			assert.Equal(t, console.Operator, ev.From)
			ops = append(ops, ev.Reason)
		}
	}
	assert.Equal(t, []string{"sent a message to coder", "canceled task t-sub: told tester in worker's name",
		"canceled task t-sub: told worker in tester's name"}, ops)
}

// TestActionBodyOverTheLimit: an action body over 1 MiB is refused with
// 413 and says so (it said "unexpected EOF"); nothing is sent.
func TestActionBodyOverTheLimit(t *testing.T) {
	t.Parallel()
	c, _, srv := newConsole(t)
	body := `{"to":"coder","text":"` + strings.Repeat("x", 1<<20) + `"}`
	req, err := http.NewRequestWithContext(testkit.Ctx(t), http.MethodPost, srv.URL+"/api/action/send", strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(console.TokenHeader, token)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var out struct{ Error string }
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	assert.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
	assert.Equal(t, "action body is over the limit of 1 MiB; send a shorter text", out.Error)
	st, err := c.State(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Empty(t, st.Threads, "nothing sent")
}
