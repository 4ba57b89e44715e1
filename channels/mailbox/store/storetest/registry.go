package storetest

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/internal/testkit"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

func (s *suite) runRegistry(t *testing.T) {
	t.Run("CardRoundTrip", testkit.Parallel(s.testCardRoundTrip))
	t.Run("Defaults", testkit.Parallel(s.testCardDefaults))
	t.Run("Unknown", testkit.Parallel(s.testUnknownAgent))
	t.Run("BadInput", testkit.Parallel(s.testCardBadInput))
	t.Run("ConcurrentUpdates", testkit.Parallel(s.testConcurrentCards))
	t.Run("OfflineDetection", testkit.Parallel(s.testOffline))
}

// testCardRoundTrip: a card written by one process is read whole by
// another; Cards lists every card sorted by id.
func (s *suite) testCardRoundTrip(t *testing.T) {
	w := s.world(t)
	be := w.open(t, nil)
	now := envelope.NewTime(time.Now())
	want := envelope.Card{AgentID: "coder", Description: "writes code", Capabilities: []string{"go", "sort"},
		Status: envelope.StatusBusy, AllowFrom: []string{"*"}, MaxConcurrentTasks: 3,
		CurrentTasks: []string{"task-1"}, RegisteredAt: now, LastHeartbeat: now,
		Roles: []string{"engineer"}, PID: 42, Host: "box"}
	got, err := be.UpdateCard(testkit.Ctx(t), "coder", func(c *envelope.Card) { *c = want })
	require.NoError(t, err)
	assertCard(t, want, got)
	for _, id := range []string{"zed", "alpha"} {
		_, err := be.UpdateCard(testkit.Ctx(t), id, func(c *envelope.Card) { c.Description = id })
		require.NoError(t, err)
	}
	other := w.open(t, nil)
	read, err := other.Card(testkit.Ctx(t), "coder")
	require.NoError(t, err)
	assertCard(t, want, read)
	cards, err := other.Cards(testkit.Ctx(t))
	require.NoError(t, err)
	var ids []string
	for _, c := range cards {
		ids = append(ids, c.AgentID)
	}
	assert.Equal(t, []string{"alpha", "coder", "zed"}, ids)
}

// assertCard compares cards, timestamps to the millisecond.
func assertCard(t *testing.T, want, got envelope.Card) {
	t.Helper()
	assert.Equal(t, want.RegisteredAt.UnixMilli(), got.RegisteredAt.UnixMilli(), "registered_at")
	assert.Equal(t, want.LastHeartbeat.UnixMilli(), got.LastHeartbeat.UnixMilli(), "last_heartbeat")
	got.RegisteredAt, got.LastHeartbeat = want.RegisteredAt, want.LastHeartbeat
	assert.Equal(t, want, got)
}

// testCardDefaults: a new card gets its id, empty lists (not nil, as
// nanobot reads them), a status that follows current_tasks, and
// registered_at and last_heartbeat.
func (s *suite) testCardDefaults(t *testing.T) {
	be := s.world(t).open(t, nil)
	before := time.Now().Add(-time.Second)
	got, err := be.UpdateCard(testkit.Ctx(t), "fresh", func(c *envelope.Card) {})
	require.NoError(t, err)
	assert.Equal(t, "fresh", got.AgentID)
	assert.Equal(t, envelope.StatusIdle, got.Status)
	assert.NotNil(t, got.Capabilities)
	assert.NotNil(t, got.AllowFrom)
	assert.NotNil(t, got.CurrentTasks)
	assert.True(t, got.RegisteredAt.After(before), "registered_at set")
	assert.False(t, got.LastHeartbeat.IsZero(), "last_heartbeat set")
	got, err = be.UpdateCard(testkit.Ctx(t), "fresh", func(c *envelope.Card) {
		c.Status, c.CurrentTasks, c.AgentID = "", []string{"t1"}, "someone-else"
	})
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusBusy, got.Status, "status follows current_tasks")
	assert.Equal(t, "fresh", got.AgentID, "the key names the agent")
}

// testUnknownAgent: Card of an agent without a card wraps ErrUnknownAgent.
func (s *suite) testUnknownAgent(t *testing.T) {
	be := s.world(t).open(t, nil)
	_, err := be.Card(testkit.Ctx(t), "nobody")
	require.ErrorIs(t, err, store.ErrUnknownAgent)
	cards, err := be.Cards(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Empty(t, cards)
}

// testCardBadInput: bad ids, a nil update and an unknown status are
// refused, and nothing is written.
func (s *suite) testCardBadInput(t *testing.T) {
	be := s.world(t).open(t, nil)
	ctx := testkit.Ctx(t)
	for _, id := range []string{"", "../x", "a/b", ".hidden"} {
		_, err := be.UpdateCard(ctx, id, func(*envelope.Card) {})
		assert.Error(t, err, "update %q", id)
		_, err = be.Card(ctx, id)
		assert.Error(t, err, "card %q", id)
	}
	_, err := be.UpdateCard(ctx, "ok", nil)
	assert.Error(t, err, "nil update")
	_, err = be.UpdateCard(ctx, "ok", func(c *envelope.Card) { c.Status = "sleeping" })
	assert.Error(t, err, "unknown status")
	_, err = be.Card(ctx, "ok")
	assert.ErrorIs(t, err, store.ErrUnknownAgent, "nothing written")
}

// testConcurrentCards: many writers in several processes update cards at
// once, several of them the same card; no update is lost.
func (s *suite) testConcurrentCards(t *testing.T) {
	const writers, updates = 4, 10
	w := s.world(t)
	var wg sync.WaitGroup
	for i := range writers {
		be := w.open(t, nil)
		wg.Go(func() {
			for j := range updates {
				tag := fmt.Sprintf("w%d-%d", i, j)
				for _, id := range []string{"shared", fmt.Sprintf("own-%d", i)} {
					_, err := be.UpdateCard(testkit.Ctx(t), id, func(c *envelope.Card) {
						c.Capabilities = append(c.Capabilities, tag)
					})
					if err != nil {
						t.Errorf("update %s: %v", id, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	cards, err := w.open(t, nil).Cards(testkit.Ctx(t))
	require.NoError(t, err)
	require.Len(t, cards, writers+1)
	for _, c := range cards {
		want := updates
		if c.AgentID == "shared" {
			want = writers * updates
		}
		assert.Len(t, c.Capabilities, want, "updates kept on %s", c.AgentID)
		assert.Len(t, slices.Compact(slices.Sorted(slices.Values(c.Capabilities))), want, "no update applied twice")
	}
}

// testOffline: an agent whose last heartbeat is older than offlineAfter
// counts as offline whatever its card says; a fresh heartbeat brings it
// back; a card marked offline is offline.
func (s *suite) testOffline(t *testing.T) {
	be := s.world(t).open(t, nil)
	const offlineAfter = 30 * time.Second
	now := time.Now()
	stale := envelope.NewTime(now.Add(-time.Minute))
	card, err := be.UpdateCard(testkit.Ctx(t), "crashed", func(c *envelope.Card) {
		c.Status, c.LastHeartbeat = envelope.StatusIdle, stale
	})
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusOffline, card.EffectiveStatus(now, offlineAfter))
	read, err := be.Card(testkit.Ctx(t), "crashed")
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusIdle, read.Status, "the card itself still says idle")
	assert.Equal(t, envelope.StatusOffline, read.EffectiveStatus(now, offlineAfter))

	read, err = be.UpdateCard(testkit.Ctx(t), "crashed", func(c *envelope.Card) { c.LastHeartbeat = envelope.NewTime(now) })
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusIdle, read.EffectiveStatus(now, offlineAfter), "heartbeat brings it back")
	read, err = be.UpdateCard(testkit.Ctx(t), "crashed", func(c *envelope.Card) { c.Status = envelope.StatusOffline })
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusOffline, read.EffectiveStatus(now, offlineAfter), "stopped")
}
