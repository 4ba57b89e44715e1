package fsstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

var hbStart = time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)

// Defaults of the channel: a beat every 5 s, offline after 30 s, so the
// registry's copy may be 15 s old.
const (
	hbEvery  = 5 * time.Second
	hbMaxAge = 15 * time.Second
)

// openStore opens a store on a fresh root, closed when the test ends.
func openStore(t *testing.T) *fsstore.Store {
	t.Helper()
	st, err := fsstore.Open(fsstore.Options{Root: filepath.Join(t.TempDir(), "mailboxes"), NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// registryWatch counts how often _registry.json is replaced (every writer
// renames a new file in) and reads it as nanobot does.
type registryWatch struct {
	path  string
	last  os.FileInfo
	count int
}

func newRegistryWatch(t *testing.T, st *fsstore.Store) *registryWatch {
	t.Helper()
	r := &registryWatch{path: filepath.Join(st.Root(), "_registry.json")}
	r.writes(t)
	r.count = 0
	return r
}

// writes returns how many times the file was replaced so far.
func (r *registryWatch) writes(t *testing.T) int {
	t.Helper()
	fi, err := os.Stat(r.path)
	require.NoError(t, err)
	if r.last == nil || !os.SameFile(r.last, fi) {
		r.count++
	}
	r.last = fi
	return r.count
}

// heartbeats returns each agent's last_heartbeat as the file says it.
func (r *registryWatch) heartbeats(t *testing.T) map[string]time.Time {
	t.Helper()
	data, err := os.ReadFile(r.path)
	require.NoError(t, err)
	var entries map[string]struct {
		LastHeartbeat envelope.Time `json:"last_heartbeat"`
	}
	require.NoError(t, json.Unmarshal(data, &entries))
	out := map[string]time.Time{}
	for id, e := range entries {
		out[id] = e.LastHeartbeat.Time
	}
	return out
}

// registerAt writes an idle card for each agent with heartbeat at.
func registerAt(t *testing.T, st *fsstore.Store, at time.Time, agents ...string) {
	t.Helper()
	for _, id := range agents {
		_, err := st.UpdateCard(testkit.Ctx(t), id, func(c *envelope.Card) {
			c.Status, c.RegisteredAt, c.LastHeartbeat = envelope.StatusIdle, envelope.NewTime(at), envelope.NewTime(at)
		})
		require.NoError(t, err)
	}
}

// Issue 15: twenty minutes of heartbeats rewrites the registry about once per
// maxAge, not at every beat; readers of the store see each beat at once,
// and the registry alone (nanobot's view) is never older than maxAge.
func TestHeartbeatRewritesRegistryOnlyWhenStale(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	registerAt(t, st, hbStart, "coder")
	reg := newRegistryWatch(t, st)

	const beats = 240 // twenty minutes
	for i := 1; i <= beats; i++ {
		now := hbStart.Add(time.Duration(i) * hbEvery)
		card, err := st.Heartbeat(testkit.Ctx(t), "coder", now, hbMaxAge)
		require.NoError(t, err)
		require.True(t, card.LastHeartbeat.Equal(now), "the card returned has the new heartbeat")
		read, err := st.Card(testkit.Ctx(t), "coder")
		require.NoError(t, err)
		require.True(t, read.LastHeartbeat.Equal(now), "beat %d: a reader sees it at once", i)
		require.Equal(t, envelope.StatusIdle, read.Status)
		require.LessOrEqual(t, now.Sub(reg.heartbeats(t)["coder"]), hbMaxAge, "beat %d: nanobot's view", i)
		reg.writes(t)
	}
	writes := reg.writes(t)
	assert.LessOrEqual(t, writes, beats*int(hbEvery)/int(hbMaxAge), "at most one write per maxAge")
	assert.Positive(t, writes)
	t.Logf("%d beats, %d registry writes", beats, writes)
}

// One renewal carries every agent's heartbeat: with many agents the
// registry is still rewritten about once per maxAge in all.
func TestHeartbeatOneWriteRenewsEveryAgent(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	var agents []string
	for i := range 50 {
		agents = append(agents, fmt.Sprintf("agent-%02d", i))
	}
	registerAt(t, st, hbStart, agents...)
	reg := newRegistryWatch(t, st)

	const rounds = 24 // two minutes
	for i := 1; i <= rounds; i++ {
		now := hbStart.Add(time.Duration(i) * hbEvery)
		for _, id := range agents {
			_, err := st.Heartbeat(testkit.Ctx(t), id, now, hbMaxAge)
			require.NoError(t, err)
			reg.writes(t)
		}
		for id, at := range reg.heartbeats(t) {
			require.LessOrEqual(t, now.Sub(at), hbMaxAge, "round %d: nanobot's view of %s", i, id)
		}
	}
	writes := reg.writes(t)
	assert.LessOrEqual(t, writes, rounds*int(hbEvery)/int(hbMaxAge), "%d agents, one write per maxAge", len(agents))
	t.Logf("%d agents × %d beats: %d registry writes", len(agents), rounds, writes)
}

// A crashed agent's heartbeat stops with it: renewals by others carry its
// last one, and after offlineAfter every reader sees it offline.
func TestHeartbeatOfCrashedAgentStops(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	registerAt(t, st, hbStart, "alive", "crashed")
	crash := hbStart.Add(10 * time.Second)
	for now := hbStart.Add(hbEvery); !now.After(hbStart.Add(2 * time.Minute)); now = now.Add(hbEvery) {
		_, err := st.Heartbeat(testkit.Ctx(t), "alive", now, hbMaxAge)
		require.NoError(t, err)
		if !now.After(crash) {
			_, err = st.Heartbeat(testkit.Ctx(t), "crashed", now, hbMaxAge)
			require.NoError(t, err)
		}
	}
	now := hbStart.Add(2 * time.Minute)
	cards, err := st.Cards(testkit.Ctx(t))
	require.NoError(t, err)
	require.Len(t, cards, 2)
	assert.Equal(t, "alive", cards[0].AgentID)
	assert.Equal(t, envelope.StatusIdle, cards[0].EffectiveStatus(now, 30*time.Second))
	assert.True(t, cards[1].LastHeartbeat.Equal(crash), "the crashed agent's last beat: %v", cards[1].LastHeartbeat)
	assert.Equal(t, envelope.StatusOffline, cards[1].EffectiveStatus(now, 30*time.Second))

	reg := newRegistryWatch(t, st).heartbeats(t)
	assert.False(t, reg["crashed"].After(crash), "nanobot's view: no later heartbeat")
	assert.LessOrEqual(t, now.Sub(reg["alive"]), hbMaxAge)
}

// A renewal rewrites only last_heartbeat, of agents with a heartbeat file:
// nanobot's cards and keys switchboard does not know stay as they were.
func TestHeartbeatRenewalKeepsOtherEntries(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	registerAt(t, st, hbStart, "coder")
	path := filepath.Join(st.Root(), "_registry.json")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var entries map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &entries))
	entries["coder"] = json.RawMessage(strings.Replace(string(entries["coder"]), "{", `{"x_extra": "<kept>",`, 1))
	nanobot := `{"agent_id":"py","status":"idle","last_heartbeat":"2026-04-26T09:00:00Z","x":1}`
	entries["py"] = json.RawMessage(nanobot)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(entries))
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o600))

	now := hbStart.Add(time.Minute)
	_, err = st.Heartbeat(testkit.Ctx(t), "coder", now, hbMaxAge)
	require.NoError(t, err)
	data, err = os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"x_extra": "<kept>"`, "unknown keys kept, not escaped")
	require.NoError(t, json.Unmarshal(data, &entries))
	assert.JSONEq(t, nanobot, string(entries["py"]), "nanobot's card untouched")
	card, err := st.Card(testkit.Ctx(t), "coder")
	require.NoError(t, err)
	assert.True(t, card.LastHeartbeat.Equal(now))
}

// The heartbeat file is the agent's own (0600, in its state folder), a
// card written later than it wins, and an agent without a card is told.
func TestHeartbeatFileAndLaterCard(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	_, err := st.Heartbeat(testkit.Ctx(t), "nobody", hbStart, hbMaxAge)
	assert.ErrorIs(t, err, driver.ErrUnknownAgent)

	registerAt(t, st, hbStart, "coder")
	_, err = st.Heartbeat(testkit.Ctx(t), "coder", hbStart.Add(hbEvery), hbMaxAge)
	require.NoError(t, err)
	fi, err := os.Stat(filepath.Join(st.Root(), "coder", "state", "_heartbeat.json"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	stop := hbStart.Add(2 * hbEvery)
	_, err = st.UpdateCard(testkit.Ctx(t), "coder", func(c *envelope.Card) {
		c.Status, c.LastHeartbeat = envelope.StatusOffline, envelope.NewTime(stop)
	})
	require.NoError(t, err)
	card, err := st.Card(testkit.Ctx(t), "coder")
	require.NoError(t, err)
	assert.True(t, card.LastHeartbeat.Equal(stop), "the later of card and file")
	assert.Equal(t, envelope.StatusOffline, card.Status)

	_, err = st.Heartbeat(context.Background(), "../x", hbStart, hbMaxAge)
	assert.Error(t, err)
}
