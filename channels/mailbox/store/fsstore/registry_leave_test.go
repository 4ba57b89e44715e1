package fsstore

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A card left while the registry is busy past the caller's deadline stays
// queued, with no error, and the registry's next writer merges it; the
// same update through UpdateCard is withdrawn and fails.
func TestLeaveCardStaysQueuedForTheNextWriter(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	ctx := testkit.Ctx(t)
	_, err := s.UpdateCard(ctx, "gopher", func(c *envelope.Card) { c.Description = "works" })
	require.NoError(t, err)
	unlock, err := s.lockRegistry(ctx) // a merge under way that outlasts the deadlines below
	require.NoError(t, err)

	offline := func(c *envelope.Card) { c.Status = envelope.StatusOffline }
	gone, cancel := context.WithCancel(ctx)
	queued := make(chan string, 1)
	s.onQueued = func(string) { cancel(); queued <- "" } // the deadline ends once the card is queued
	_, err = s.UpdateCard(gone, "gopher", offline)
	require.ErrorIs(t, err, context.Canceled)
	testkit.Recv(t, queued, "UpdateCard's queued card")
	queue, err := s.listQueue()
	require.NoError(t, err)
	assert.Empty(t, queue, "UpdateCard withdraws what it gave up on")

	gone, cancel = context.WithCancel(ctx)
	visible, err := s.LeaveCard(gone, "gopher", offline)
	require.NoError(t, err)
	assert.False(t, visible)
	queue, err = s.listQueue()
	require.NoError(t, err)
	require.Len(t, queue, 1, "LeaveCard keeps it queued")
	card, err := s.Card(ctx, "gopher")
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusIdle, card.Status, "not in the registry yet")

	unlock()
	_, err = s.UpdateCard(ctx, "other", func(*envelope.Card) {}) // the registry's next writer
	require.NoError(t, err)
	card, err = s.Card(ctx, "gopher")
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusOffline, card.Status, "merged by the next writer")
	assert.Equal(t, "works", card.Description, "built on the card as it stood")
	queue, err = s.listQueue()
	require.NoError(t, err)
	assert.Empty(t, queue)

	// With the registry free it is written at once.
	visible, err = s.LeaveCard(ctx, "other", offline)
	require.NoError(t, err)
	assert.True(t, visible)

	// Nothing is queued when the deadline ended before.
	gone, cancel = context.WithCancel(ctx)
	cancel()
	_, err = s.LeaveCard(gone, "gopher", offline)
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.LeaveCard(ctx, "../x", offline)
	require.Error(t, err)
	_, err = s.LeaveCard(ctx, "gopher", nil)
	require.Error(t, err)
}

// An agent that starts again while its offline mark still waits in the
// queue ends up with the card of its start, whether that is queued behind
// the mark or merged at once with it.
func TestLeaveCardThenRestart(t *testing.T) {
	t.Parallel()
	for _, busy := range []bool{true, false} {
		s, _ := openRegistryStore(t)
		ctx := testkit.Ctx(t)
		_, err := s.UpdateCard(ctx, "gopher", func(c *envelope.Card) { c.Status = envelope.StatusIdle })
		require.NoError(t, err)
		unlock, err := s.lockRegistry(ctx)
		require.NoError(t, err)
		gone, cancel := context.WithCancel(ctx)
		s.onQueued = func(string) { cancel() }
		visible, err := s.LeaveCard(gone, "gopher", func(c *envelope.Card) { c.Status = envelope.StatusOffline })
		require.NoError(t, err)
		require.False(t, visible)
		queued := make(chan string, 1)
		s.onQueued = func(name string) { queued <- name }

		restart := func(c *envelope.Card) { c.Status, c.Description = envelope.StatusIdle, "again" }
		if busy { // the start queues its card behind the mark
			done := make(chan error, 1)
			go func() { _, err := s.UpdateCard(ctx, "gopher", restart); done <- err }()
			testkit.Recv(t, queued, "the start's card queued")
			queue, err := s.listQueue()
			require.NoError(t, err)
			require.Len(t, queue, 2, "behind the mark")
			unlock()
			require.NoError(t, testkit.Recv(t, done, "the start's update"))
		} else { // the registry is free when it starts
			unlock()
			_, err = s.UpdateCard(ctx, "gopher", restart)
			require.NoError(t, err)
		}
		card, err := s.Card(ctx, "gopher")
		require.NoError(t, err)
		assert.Equal(t, envelope.StatusIdle, card.Status, "busy=%v", busy)
		assert.Equal(t, "again", card.Description)
		queue, err := s.listQueue()
		require.NoError(t, err)
		assert.Empty(t, queue)
	}
}

// A card queued while a merge runs (its writer could not take the lock,
// and may have given up waiting) is merged by the same holder before it
// lets the lock go.
func TestMergeTakesWhatWasQueuedMeanwhile(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	ctx := testkit.Ctx(t)
	raw, err := testCardJSON("late")
	require.NoError(t, err)
	merges := 0
	s.onMerged = func(int) {
		merges++
		if merges == 1 { // another process queues its card during the first rewrite
			_, err := s.enqueueCard(nil, "late", raw)
			require.NoError(t, err)
		}
	}
	_, err = s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
	require.NoError(t, err)
	assert.Equal(t, 2, merges, "the holder merged again")
	cards, err := s.Cards(ctx)
	require.NoError(t, err)
	require.Len(t, cards, 2)
	assert.Equal(t, "late", cards[1].AgentID)
	queue, err := s.listQueue()
	require.NoError(t, err)
	assert.Empty(t, queue)
	_, err = s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
	require.NoError(t, err)
	assert.Equal(t, 3, merges, "with nothing queued meanwhile, no second rewrite")
}

// A heartbeat that leaves the renew marker while a merge runs does not
// make the holder's second pass rewrite the registry: that merge renewed
// every heartbeat already, and the marker waits for the next one.
func TestMergeAgainLeavesTheRenewMarker(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	ctx := testkit.Ctx(t)
	merges := 0
	s.onMerged = func(int) {
		merges++
		if merges == 1 { // another agent's heartbeat finds the lock held
			s.askRenewal()
		}
	}
	_, err := s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
	require.NoError(t, err)
	assert.Equal(t, 1, merges, "no second rewrite for the marker alone")
	_, err = os.Lstat(filepath.Join(s.queueDir(), renewMarker))
	require.NoError(t, err, "the marker is left for the next merge")

	_, err = s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
	require.NoError(t, err)
	assert.Equal(t, 2, merges)
	_, err = os.Lstat(filepath.Join(s.queueDir(), renewMarker))
	assert.ErrorIs(t, err, fs.ErrNotExist, "the next merge took the marker")
}
