package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// testApprovals checks the store's agent.ApprovalBook, which the facade
// keeps on the backend's records: an approval put by one process is
// listed and decided by another, the first decision stands among many
// deciders, and a deleted approval is gone.
func (s *suite) testApprovals(t *testing.T) {
	w := s.world(t)
	var book, other agent.ApprovalBook = w.open(t, nil).Approvals(), w.open(t, nil).Approvals()
	ctx := testkit.Ctx(t)

	list, err := other.ListApprovals(ctx)
	require.NoError(t, err)
	assert.Empty(t, list, "nothing waits yet")

	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	first := agent.Approval{ID: envelope.NewID(), Agent: "bob", Kind: "tool", Action: "run tool write_file",
		Detail: `{"path":"x"}`, Channel: "feishu", ChatID: "c1", Created: now, Deadline: now.Add(5 * time.Minute)}
	second := first
	second.ID, second.Created = envelope.NewID(), now.Add(time.Second)
	require.NoError(t, book.PutApproval(ctx, second))
	require.NoError(t, book.PutApproval(ctx, first))
	assert.Error(t, book.PutApproval(ctx, first), "an id that exists is refused")
	decided := first
	decided.ID, decided.Decision = envelope.NewID(), &agent.Decision{Allow: true}
	assert.Error(t, book.PutApproval(ctx, decided), "a new approval has no decision")

	list, err = other.ListApprovals(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, first.ID, list[0].ID, "oldest first")
	assert.Equal(t, "run tool write_file", list[0].Action)
	assert.Equal(t, "c1", list[0].ChatID)
	assert.True(t, list[0].Deadline.Equal(first.Deadline))
	assert.Nil(t, list[0].Decision)

	// Many deciders at once: exactly one wins, all see its decision.
	var wg sync.WaitGroup
	results := make([]error, 8)
	for i := range results {
		wg.Go(func() {
			be := book
			if i%2 == 1 {
				be = other
			}
			_, results[i] = be.DecideApproval(ctx, first.ID, agent.Decision{Allow: i%2 == 0, By: "decider", Time: now})
		})
	}
	wg.Wait()
	wins := 0
	for _, err := range results {
		if err == nil {
			wins++
		} else {
			assert.ErrorIs(t, err, agent.ErrDecided)
		}
	}
	assert.Equal(t, 1, wins, "the first decision stands: %v", results)
	got, err := book.GetApproval(ctx, first.ID)
	require.NoError(t, err)
	require.NotNil(t, got.Decision)
	assert.Equal(t, "decider", got.Decision.By)
	again, err := other.DecideApproval(ctx, first.ID, agent.Decision{Allow: !got.Decision.Allow, By: "late"})
	require.ErrorIs(t, err, agent.ErrDecided)
	assert.Equal(t, got.Decision.Allow, again.Decision.Allow, "a late decider learns the decision that stands")

	got, err = other.GetApproval(ctx, second.ID)
	require.NoError(t, err)
	assert.Nil(t, got.Decision, "the other approval still waits")

	require.NoError(t, book.DeleteApproval(ctx, first.ID))
	require.NoError(t, book.DeleteApproval(ctx, first.ID), "deleting again is no error")
	_, err = other.GetApproval(ctx, first.ID)
	assert.ErrorIs(t, err, agent.ErrNoApproval)
	_, err = other.DecideApproval(ctx, first.ID, agent.Decision{Allow: true})
	assert.ErrorIs(t, err, agent.ErrNoApproval)
	list, err = other.ListApprovals(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, second.ID, list[0].ID)

	for _, id := range []string{"", "../x", "a/b", "a.b"} {
		_, err := book.GetApproval(ctx, id)
		assert.ErrorIs(t, err, agent.ErrNoApproval, "id %q", id)
	}
}
