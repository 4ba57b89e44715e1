package storetest

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// testEscalations checks the store's escalations, which the facade keeps
// on the backend's records: one saved by its agent is listed and decided
// by another process, it climbs without losing its decision, the first
// decision stands among many deciders, and a deleted one is gone.
func (s *suite) testEscalations(t *testing.T) {
	w := s.world(t)
	mine, other := w.open(t, nil).Escalations(), w.open(t, nil).Escalations()
	ctx := testkit.Ctx(t)

	list, err := other.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, list)

	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	e := store.Escalation{ID: "0196a1b2-0000-7000-8000-000000000001", Agent: "alice", TaskID: "task_1", Trigger: "rejected",
		Asked: "sort 5 3 9 1", Attempts: []store.Attempt{{Agent: "bob", Said: "rejected", Reason: "unauthorized"}},
		Levels: []string{"dave", "human"}, Level: 0, AskedAt: "dave", Since: now, Due: now.Add(time.Minute),
		Task: json.RawMessage(`{"task_id":"task_1"}`), Created: now}
	older := e
	older.ID, older.Created = "0196a1b2-0000-7000-8000-000000000000", now.Add(-time.Second)
	require.NoError(t, mine.Save(ctx, e))
	require.NoError(t, mine.Save(ctx, older))

	list, err = other.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, older.ID, list[0].ID, "oldest first")
	got := list[1]
	assert.Equal(t, "dave", got.At())
	assert.Equal(t, e.Attempts, got.Attempts)
	assert.JSONEq(t, `{"task_id":"task_1"}`, string(got.Task))
	assert.Nil(t, got.Decision)

	_, err = other.Decide(ctx, e.ID, store.EscalationDecision{Action: "later"})
	assert.ErrorContains(t, err, `unknown action "later"`)
	_, err = other.Decide(ctx, e.ID, store.EscalationDecision{Action: store.ActReassign})
	assert.ErrorContains(t, err, "reassign needs the agent")
	_, err = other.Decide(ctx, "nope", store.EscalationDecision{Action: store.ActRetry})
	assert.ErrorIs(t, err, store.ErrNoEscalation)

	var wg sync.WaitGroup
	wins := make(chan string, 4)
	for _, by := range []string{"dave", "operator", "ann", "erin"} {
		wg.Go(func() {
			if _, err := other.Decide(ctx, e.ID, store.EscalationDecision{Action: store.ActCancel, By: by}); err == nil {
				wins <- by
			} else {
				assert.ErrorIs(t, err, store.ErrEscalationDecided)
			}
		})
	}
	wg.Wait()
	close(wins)
	var winners []string
	for by := range wins {
		winners = append(winners, by)
	}
	require.Len(t, winners, 1, "exactly one decider wins")

	e.Level, e.AskedAt = 1, "" // it climbs while decided: the decision stays
	require.NoError(t, mine.Save(ctx, e))
	got, err = mine.Get(ctx, e.ID)
	require.NoError(t, err)
	require.NotNil(t, got.Decision)
	assert.Equal(t, winners[0], got.Decision.By)
	assert.Equal(t, "human", got.At())

	require.NoError(t, mine.Delete(ctx, e.ID))
	_, err = other.Get(ctx, e.ID)
	assert.ErrorIs(t, err, store.ErrNoEscalation)
	list, err = other.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 1)
}
