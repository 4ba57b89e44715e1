package mailbox_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// registryHeartbeat returns agent's last_heartbeat in _registry.json, as
// nanobot reads it, and the file's identity (each write is a new file).
func registryHeartbeat(t *testing.T, root, agent string) (time.Time, os.FileInfo) {
	t.Helper()
	path := filepath.Join(root, "_registry.json")
	fi, err := os.Stat(path)
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var entries map[string]envelope.Card
	require.NoError(t, json.Unmarshal(data, &entries))
	return entries[agent].LastHeartbeat.Time, fi
}

// Issue 15: the channel's heartbeats on the folder store rewrite the
// registry about once per offlineAfter/2, not at every beat; the store's
// readers see every beat, and nanobot's view stays within offlineAfter/2.
func TestHeartbeatsSpareTheRegistry(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	start := time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)
	clk := clock.NewManual(start)
	cfg := e.config("coder")
	cfg.HeartbeatInterval, cfg.OfflineAfter = 5, 30
	e.start(t, cfg, mailbox.Options{Clock: clk})
	e.waitCard(t, "coder", "registered", func(envelope.Card) bool { return true })
	_, last := registryHeartbeat(t, e.root, "coder")

	const beats = 36 // three minutes
	writes := 0
	for i := 1; i <= beats; i++ {
		clk.Add(5 * time.Second)
		now := clk.Now()
		e.waitCard(t, "coder", "heartbeat", func(c envelope.Card) bool { return c.LastHeartbeat.Equal(now) })
		assert.True(t, e.card(t, "coder").LastHeartbeat.Equal(now), "a reader sees beat %d at once", i)
		at, fi := registryHeartbeat(t, e.root, "coder")
		require.LessOrEqual(t, now.Sub(at), 15*time.Second, "beat %d: nanobot's view", i)
		if !os.SameFile(last, fi) {
			writes++
		}
		last = fi
	}
	assert.LessOrEqual(t, writes, beats*5/15, "at most one registry write per offlineAfter/2")
	assert.Zero(t, e.store.cards.Count(func(c envelope.Card) bool { return c.Status != envelope.StatusIdle }))
}

// A card another writer marked offline while the agent runs is written
// again at the next beat.
func TestHeartbeatHealsCardMarkedOffline(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	start := time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)
	clk := clock.NewManual(start)
	cfg := e.config("coder")
	cfg.HeartbeatInterval, cfg.OfflineAfter = 5, 30
	e.start(t, cfg, mailbox.Options{Clock: clk})
	e.waitCard(t, "coder", "registered", func(envelope.Card) bool { return true })
	_, err := e.store.Store.UpdateCard(testkit.Ctx(t), "coder", func(c *envelope.Card) { c.Status = envelope.StatusOffline })
	require.NoError(t, err)

	clk.Add(5 * time.Second)
	now := clk.Now()
	c := e.waitCard(t, "coder", "healed", func(c envelope.Card) bool {
		return c.Status == envelope.StatusIdle && c.LastHeartbeat.Equal(now)
	})
	assert.True(t, c.RegisteredAt.Equal(start))
	assert.Equal(t, envelope.StatusIdle, e.card(t, "coder").Status)
}
