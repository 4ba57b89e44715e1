package fsstore

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

var registryTestNow = time.Date(2026, 4, 26, 10, 0, 0, 123456000, time.UTC)

// openRegistryStore opens a store on a fresh root with a fixed clock and
// a logger whose output is returned.
func openRegistryStore(t testing.TB) (*Store, *testkit.Buffer) {
	t.Helper()
	logs := &testkit.Buffer{}
	s, err := Open(Options{
		Root:   t.TempDir(),
		NoSync: true,
		Now:    func() time.Time { return registryTestNow },
		Logger: slog.New(slog.NewTextHandler(logs, nil)),
	})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s, logs
}

func writeRegistryRaw(t testing.TB, s *Store, data []byte) {
	t.Helper()
	require.NoError(t, os.WriteFile(s.registryPath(), data, 0o600))
}

func readRegistryRaw(t testing.TB, s *Store) []byte {
	t.Helper()
	data, err := os.ReadFile(s.registryPath())
	require.NoError(t, err)
	return data
}

func readRegistryObject(t testing.TB, s *Store) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(readRegistryRaw(t, s), &m))
	return m
}

func compactJSON(t testing.TB, raw []byte) string {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, json.Compact(&buf, raw))
	return buf.String()
}

func TestRegistryUpdateCardCreatesCard(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	ctx := context.Background()

	got, err := s.UpdateCard(ctx, "gopher", func(c *envelope.Card) {
		assert.Equal(t, envelope.Card{AgentID: "gopher"}, *c, "a new card is zero with its id")
		c.Description = "写 Go 的 agent <go> & co"
		c.MaxConcurrentTasks = 3
	})
	require.NoError(t, err)
	now := envelope.NewTime(registryTestNow)
	want := envelope.Card{
		AgentID: "gopher", Description: "写 Go 的 agent <go> & co",
		Capabilities: []string{}, Status: envelope.StatusIdle, AllowFrom: []string{},
		MaxConcurrentTasks: 3, CurrentTasks: []string{},
		RegisteredAt: now, LastHeartbeat: now,
	}
	assert.Equal(t, want, got)

	card, err := s.Card(ctx, "gopher")
	require.NoError(t, err)
	assert.Equal(t, got, card, "the card returned is the card stored")
	cards, err := s.Cards(ctx)
	require.NoError(t, err)
	assert.Equal(t, []envelope.Card{got}, cards)

	for _, name := range []string{registryName, registryLockName} {
		fi, err := os.Lstat(filepath.Join(s.Root(), name))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), name)
	}
	entries, err := filepath.Glob(filepath.Join(s.Root(), "*.tmp"))
	require.NoError(t, err)
	assert.Empty(t, entries, "no temp file left behind")
	assert.Contains(t, string(readRegistryRaw(t, s)), "<go> & co", "not HTML-escaped")
}

func TestRegistryCardHasNanobotTypes(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	_, err := s.UpdateCard(context.Background(), "gopher", func(c *envelope.Card) {
		c.Capabilities, c.AllowFrom, c.CurrentTasks = nil, nil, nil
	})
	require.NoError(t, err)

	var reg map[string]map[string]any
	require.NoError(t, json.Unmarshal(readRegistryRaw(t, s), &reg))
	card := reg["gopher"]
	for _, key := range []string{"capabilities", "allow_from", "current_tasks"} {
		assert.Equal(t, []any{}, card[key], "%s is a list, never null", key)
	}
	for _, key := range []string{"registered_at", "last_heartbeat"} {
		assert.Equal(t, "2026-04-26T10:00:00.123456+00:00", card[key], "%s is an isoformat string", key)
	}
	for key, want := range map[string]any{
		"agent_id": "gopher", "description": "", "status": "idle", "max_concurrent_tasks": float64(0),
	} {
		assert.Equal(t, want, card[key], key)
	}
}

func TestRegistryUpdateSeesStoredCard(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	ctx := context.Background()
	first, err := s.UpdateCard(ctx, "gopher", func(c *envelope.Card) {
		c.Capabilities = []string{"code_write"}
		c.CurrentTasks = []string{"t1"}
	})
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusBusy, first.Status, "an empty status follows current_tasks")

	later := registryTestNow.Add(5 * time.Second)
	second, err := s.UpdateCard(ctx, "gopher", func(c *envelope.Card) {
		assert.Equal(t, first, *c)
		c.LastHeartbeat = envelope.NewTime(later)
		c.AgentID = "someone-else" // ignored: the key decides
	})
	require.NoError(t, err)
	assert.Equal(t, "gopher", second.AgentID)
	assert.Equal(t, first.RegisteredAt, second.RegisteredAt)
	assert.True(t, second.LastHeartbeat.Equal(later))
	assert.Equal(t, []string{"code_write"}, second.Capabilities)
	assert.NotContains(t, readRegistryObject(t, s), "someone-else")
}

func TestRegistryUpdateCardErrors(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	ctx := context.Background()
	_, err := s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
	require.NoError(t, err)
	before := readRegistryRaw(t, s)

	tests := []struct {
		name    string
		id      string
		update  func(*envelope.Card)
		wantErr error
		wantMsg string
	}{
		{"traversal id", "../etc", func(*envelope.Card) {}, envelope.ErrBadAgentID, ""},
		{"reserved id", "_registry.json", func(*envelope.Card) {}, envelope.ErrBadAgentID, ""},
		{"empty id", "", func(*envelope.Card) {}, envelope.ErrBadAgentID, ""},
		{"nil update", "gopher", nil, nil, "update function is nil"},
		{"unknown status", "gopher", func(c *envelope.Card) { c.Status = "online" }, nil, `status "online"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			called := false
			update := tt.update
			if update != nil {
				update = func(c *envelope.Card) { called = true; tt.update(c) }
			}
			_, err := s.UpdateCard(ctx, tt.id, update)
			require.Error(t, err)
			if tt.wantErr != nil {
				assert.ErrorIs(t, err, tt.wantErr)
				assert.False(t, called, "update must not run for a bad id")
			}
			assert.Contains(t, err.Error(), tt.wantMsg)
			assert.Equal(t, string(before), string(readRegistryRaw(t, s)), "registry unchanged")
		})
	}
}

func TestRegistryReadErrors(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	ctx := context.Background()

	_, err := s.Card(ctx, "nobody")
	assert.ErrorIs(t, err, driver.ErrUnknownAgent, "no registry file yet")
	cards, err := s.Cards(ctx)
	require.NoError(t, err)
	assert.Empty(t, cards)

	_, err = s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
	require.NoError(t, err)
	_, err = s.Card(ctx, "nobody")
	assert.ErrorIs(t, err, driver.ErrUnknownAgent)
	_, err = s.Card(ctx, "../gopher")
	assert.ErrorIs(t, err, envelope.ErrBadAgentID)
	assert.NotErrorIs(t, err, driver.ErrUnknownAgent)
}

func TestRegistryCancelledContext(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.UpdateCard(ctx, "gopher", func(*envelope.Card) { t.Error("update ran") })
	assert.ErrorIs(t, err, context.Canceled)
	_, err = s.Card(ctx, "gopher")
	assert.ErrorIs(t, err, context.Canceled)
	_, err = s.Cards(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	_, err = os.Lstat(s.registryPath())
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestRegistryContextEndsWhileWaitingForLock(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)

	// The card's lock serialises the writers of one card: the update
	// never runs without it.
	unlockCard, err := s.lockCard(context.Background(), "gopher")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = s.UpdateCard(ctx, "gopher", func(*envelope.Card) { t.Error("update ran without the lock") })
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	unlockCard()

	// While another writer holds the registry's lock and so never merges
	// the queue, the context ends: the card is withdrawn, nothing changed.
	unlock, err := s.lockRegistry(context.Background())
	require.NoError(t, err)
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = s.UpdateCard(ctx, "gopher", func(c *envelope.Card) { c.Description = "withdrawn" })
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	queue, err := s.listQueue()
	require.NoError(t, err)
	assert.Empty(t, queue, "the card is withdrawn")
	_, err = os.Lstat(s.registryPath())
	assert.ErrorIs(t, err, os.ErrNotExist, "the registry is not written")

	// Readers take no lock.
	_, err = s.Cards(context.Background())
	assert.NoError(t, err)

	unlock()
	card, err := s.UpdateCard(context.Background(), "gopher", func(*envelope.Card) {})
	assert.NoError(t, err, "the lock is free again")
	assert.Empty(t, card.Description, "the withdrawn update is not built on")
}

func TestRegistryClosedStore(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	require.NoError(t, s.Close())
	ctx := context.Background()
	_, err := s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
	assert.ErrorIs(t, err, driver.ErrClosed)
	_, err = s.Card(ctx, "gopher")
	assert.ErrorIs(t, err, driver.ErrClosed)
	_, err = s.Cards(ctx)
	assert.ErrorIs(t, err, driver.ErrClosed)
}

func TestRegistryKeepsEntriesItDoesNotKnow(t *testing.T) {
	t.Parallel()
	s, logs := openRegistryStore(t)
	ctx := context.Background()
	foreign := `{
  "_meta": {"version": 2, "big": 12345678901234567890123},
  "bad/key": {"agent_id": "bad/key"},
  "weird": [1, 2],
  "nulled": null,
  "typed": {"agent_id": "typed", "max_concurrent_tasks": "three"},
  "ok": {"agent_id": "ok", "status": "idle", "last_heartbeat": "2026-04-26T10:00:00Z", "future_key": {"x": 1}}
}`
	writeRegistryRaw(t, s, []byte(foreign))
	var orig map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(foreign), &orig))

	cards, err := s.Cards(ctx)
	require.NoError(t, err)
	require.Len(t, cards, 1, "only the real card is listed")
	assert.Equal(t, "ok", cards[0].AgentID)
	for _, bad := range []string{"weird", "nulled", "typed"} {
		assert.Contains(t, logs.String(), "agent="+bad, "skipping %s is logged", bad)
		_, err := s.Card(ctx, bad)
		assert.ErrorIs(t, err, ErrRegistryCorrupt, bad)
		assert.Contains(t, err.Error(), s.registryPath())
	}

	_, err = s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
	require.NoError(t, err)
	after := readRegistryObject(t, s)
	require.Len(t, after, len(orig)+1)
	for key, raw := range orig {
		assert.Equal(t, compactJSON(t, raw), compactJSON(t, after[key]), "entry %q changed", key)
	}
}

func TestRegistryReplacesItsOwnBadEntry(t *testing.T) {
	t.Parallel()
	s, logs := openRegistryStore(t)
	writeRegistryRaw(t, s, []byte(`{"gopher": {"max_concurrent_tasks": "three"}, "coder": {"agent_id": "coder"}}`))
	card, err := s.UpdateCard(context.Background(), "gopher", func(c *envelope.Card) {
		assert.Equal(t, envelope.Card{AgentID: "gopher"}, *c)
	})
	require.NoError(t, err)
	assert.Equal(t, "gopher", card.AgentID)
	assert.Contains(t, logs.String(), "replacing it")
	assert.Contains(t, readRegistryObject(t, s), "coder")
}
