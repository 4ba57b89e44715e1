package console_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/memstore"
	"github.com/switchboard-dev/switchboard/internal/console"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestOperatorActionsAreSigned: with the operator's key (made and
// pinned as the console command does), what the console sends as the
// operator verifies at a receiver that takes nothing unsigned, and so do
// the two updates of a cancel in the names of agents whose keys cannot be
// read here (signed by the operator, sent_by operator, as receivers take
// them: keys.Checker.CheckAs). Without the key they are refused there.
func TestOperatorActionsAreSigned(t *testing.T) {
	t.Parallel()
	ctx := testkit.Ctx(t)
	be := store.New(memstore.New(memstore.Options{}), nil)
	t.Cleanup(func() { be.Close() })
	key, err := keys.Load(ctx, be, console.Operator, keys.Source{Create: true})
	require.NoError(t, err)
	_, err = keys.PinOwn(ctx, be, console.Operator, key, keys.Policy{}, time.Now())
	require.NoError(t, err)
	none := []string{}
	receiver := keys.NewChecker(be, keys.Policy{AllowUnsigned: &none}, keys.CheckerOptions{Self: "coder"})
	verdict := func(m *envelope.Message) keys.Verdict {
		res, err := receiver.Check(ctx, m)
		require.NoError(t, err)
		if res.Verdict != keys.Verified && m.Type == envelope.TypeTaskUpdate && keys.SentBy(m) == console.Operator {
			res, err = receiver.CheckAs(ctx, m, console.Operator)
			require.NoError(t, err)
		}
		return res.Verdict
	}
	sent := func(match func(*envelope.Message) bool) []*envelope.Message {
		var out []*envelope.Message
		require.NoError(t, be.Browse(ctx, func(s store.Stored) bool {
			if match(s.Message) {
				out = append(out, s.Message)
			}
			return true
		}))
		return out
	}

	for _, signed := range []bool{true, false} {
		cfg := console.Config{Store: be, Token: token}
		want := keys.Refused
		if signed {
			cfg.Key, want = key, keys.Verified
		}
		c, err := console.New(cfg)
		require.NoError(t, err)
		srv := httptest.NewServer(c.Handler())
		t.Cleanup(srv.Close)
		text := "signed " + map[bool]string{true: "yes", false: "no"}[signed]
		assert.Equal(t, http.StatusOK, post(t, srv, "/api/action/send", `{"to":"coder","text":"`+text+`"}`, nil))
		msgs := sent(func(m *envelope.Message) bool { return m.Text() == text })
		require.Len(t, msgs, 1)
		assert.Equal(t, want, verdict(msgs[0]), "the operator's message")

		task := "t-" + text[7:]
		require.NoError(t, be.Deliver(ctx, &envelope.Message{ID: envelope.NewID(), From: "lead", To: "worker", Type: envelope.TypeTask, TTL: 2,
			Timestamp: envelope.NewTime(time.Now()), Task: &envelope.Task{ID: task, State: envelope.StatePending}}))
		assert.Equal(t, http.StatusOK, post(t, srv, "/api/action/cancel", `{"task_id":"`+task+`"}`, nil))
		updates := sent(func(m *envelope.Message) bool {
			return m.Type == envelope.TypeTaskUpdate && m.Task != nil && m.Task.ID == task
		})
		require.Len(t, updates, 2)
		for _, u := range updates {
			assert.Equal(t, console.Operator, keys.SentBy(u))
			assert.Equal(t, want, verdict(u), "the cancel to %s in %s's name", u.To, u.From)
		}
	}
}
