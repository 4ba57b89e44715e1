package fsstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

var registryTestNow = time.Date(2026, 4, 26, 10, 0, 0, 123456000, time.UTC)

// syncBuffer is a bytes.Buffer safe for a logger used from many goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// openRegistryStore opens a store on a fresh root with a fixed clock and
// a logger whose output is returned.
func openRegistryStore(t testing.TB) (*Store, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
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
	s, _ := openRegistryStore(t)
	ctx := context.Background()

	_, err := s.Card(ctx, "nobody")
	assert.ErrorIs(t, err, store.ErrUnknownAgent, "no registry file yet")
	cards, err := s.Cards(ctx)
	require.NoError(t, err)
	assert.Empty(t, cards)

	_, err = s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
	require.NoError(t, err)
	_, err = s.Card(ctx, "nobody")
	assert.ErrorIs(t, err, store.ErrUnknownAgent)
	_, err = s.Card(ctx, "../gopher")
	assert.ErrorIs(t, err, envelope.ErrBadAgentID)
	assert.NotErrorIs(t, err, store.ErrUnknownAgent)
}

func TestRegistryCancelledContext(t *testing.T) {
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
	s, _ := openRegistryStore(t)
	unlock, err := s.lockRegistry(context.Background())
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = s.UpdateCard(ctx, "gopher", func(*envelope.Card) { t.Error("update ran without the lock") })
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	// Readers take no lock.
	_, err = s.Cards(context.Background())
	assert.NoError(t, err)

	unlock()
	_, err = s.UpdateCard(context.Background(), "gopher", func(*envelope.Card) {})
	assert.NoError(t, err, "the lock is free again")
}

func TestRegistryClosedStore(t *testing.T) {
	s, _ := openRegistryStore(t)
	require.NoError(t, s.Close())
	ctx := context.Background()
	_, err := s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
	assert.ErrorIs(t, err, store.ErrClosed)
	_, err = s.Card(ctx, "gopher")
	assert.ErrorIs(t, err, store.ErrClosed)
	_, err = s.Cards(ctx)
	assert.ErrorIs(t, err, store.ErrClosed)
}

func TestRegistryKeepsEntriesItDoesNotKnow(t *testing.T) {
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

func TestRegistryCorruptFile(t *testing.T) {
	whole := `{"coder": {"agent_id": "coder", "status": "idle"}, "writer": {"agent_id": "writer"}}`
	tests := []struct {
		name     string
		data     string
		salvaged []string
	}{
		// What two nanobot writers sharing one temp file leave: a
		// shorter registry over the head of a longer one.
		{"torn by two writers", whole + `, "extra": {"agent_id": "extra"}}` + "\n}", []string{"coder", "writer"}},
		{"truncated", whole[:len(whole)-20], []string{"coder"}},
		{"garbage", "\x00\x01garbage", nil},
		{"null", "null", nil},
		{"a list", `[{"agent_id": "coder"}]`, nil},
		{"a string", `"coder"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, logs := openRegistryStore(t)
			ctx := context.Background()
			writeRegistryRaw(t, s, []byte(tt.data))

			_, err := s.Cards(ctx)
			assert.ErrorIs(t, err, ErrRegistryCorrupt)
			assert.Contains(t, err.Error(), s.registryPath(), "the error names the file")
			_, err = s.Card(ctx, "coder")
			assert.ErrorIs(t, err, ErrRegistryCorrupt)

			_, err = s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
			require.NoError(t, err)

			backup := filepath.Join(s.Root(), fmt.Sprintf("%s.corrupt-%d", registryName, registryTestNow.Unix()))
			kept, err := os.ReadFile(backup)
			require.NoError(t, err, "a copy of the corrupt file is kept")
			assert.Equal(t, tt.data, string(kept))
			fi, err := os.Stat(backup)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
			assert.Contains(t, logs.String(), "level=WARN")
			assert.Contains(t, logs.String(), "corrupt")

			cards, err := s.Cards(ctx)
			require.NoError(t, err, "the file is repaired")
			var ids []string
			for _, c := range cards {
				ids = append(ids, c.AgentID)
			}
			assert.ElementsMatch(t, append(tt.salvaged, "gopher"), ids)

			// A second corruption in the same second gets its own copy.
			writeRegistryRaw(t, s, []byte(tt.data))
			_, err = s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
			require.NoError(t, err)
			_, err = os.Stat(backup + "-2")
			assert.NoError(t, err)
		})
	}
}

func TestRegistryEmptyFileIsEmpty(t *testing.T) {
	s, _ := openRegistryStore(t)
	writeRegistryRaw(t, s, []byte(" \n"))
	cards, err := s.Cards(context.Background())
	require.NoError(t, err)
	assert.Empty(t, cards)
	_, err = s.UpdateCard(context.Background(), "gopher", func(*envelope.Card) {})
	require.NoError(t, err)
	backups, err := filepath.Glob(filepath.Join(s.Root(), "*.corrupt-*"))
	require.NoError(t, err)
	assert.Empty(t, backups, "nothing to keep")
}

func TestSalvageRegistry(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`{"a": 1, "b": {"x": [1, 2]}}`, []string{"a", "b"}},
		{`{"a": 1, "b": {"x": [1, 2`, []string{"a"}},
		{`{"a": 1} trailing`, []string{"a"}},
		{`{"a": 1, 7: 2}`, []string{"a"}},
		{`{"a": 1 "b": 2}`, []string{"a"}},
		{`[1]`, nil},
		{``, nil},
	}
	for _, tt := range tests {
		got := salvageRegistry([]byte(tt.in))
		var keys []string
		for k := range got {
			keys = append(keys, k)
		}
		assert.ElementsMatch(t, tt.want, keys, "salvage %q", tt.in)
	}
}

func TestRegistrySymlinksRefused(t *testing.T) {
	t.Run("registry", func(t *testing.T) {
		s, _ := openRegistryStore(t)
		target := filepath.Join(t.TempDir(), "elsewhere.json")
		require.NoError(t, os.WriteFile(target, []byte(`{"coder": {"agent_id": "coder"}}`), 0o600))
		require.NoError(t, os.Symlink(target, s.registryPath()))
		ctx := context.Background()

		_, err := s.Cards(ctx)
		assert.ErrorContains(t, err, "symlink")
		_, err = s.Card(ctx, "coder")
		assert.ErrorContains(t, err, "symlink")
		_, err = s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
		assert.ErrorContains(t, err, "symlink")

		data, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, `{"coder": {"agent_id": "coder"}}`, string(data), "the target is untouched")
		fi, err := os.Lstat(s.registryPath())
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the symlink is not replaced")
	})
	t.Run("lock", func(t *testing.T) {
		s, _ := openRegistryStore(t)
		target := filepath.Join(t.TempDir(), "lock")
		require.NoError(t, os.Symlink(target, filepath.Join(s.Root(), registryLockName)))
		_, err := s.UpdateCard(context.Background(), "gopher", func(*envelope.Card) {})
		assert.ErrorContains(t, err, "symlink")
		_, err = os.Lstat(target)
		assert.ErrorIs(t, err, os.ErrNotExist, "nothing created through the link")
	})
}

func TestRegistryNotARegularFile(t *testing.T) {
	t.Run("folder", func(t *testing.T) {
		s, _ := openRegistryStore(t)
		require.NoError(t, os.Mkdir(s.registryPath(), 0o700))
		_, err := s.Cards(context.Background())
		assert.ErrorContains(t, err, "not a regular file")
		_, err = s.UpdateCard(context.Background(), "gopher", func(*envelope.Card) {})
		assert.ErrorContains(t, err, "not a regular file")
	})
	t.Run("fifo does not hang", func(t *testing.T) {
		s, _ := openRegistryStore(t)
		require.NoError(t, syscall.Mkfifo(s.registryPath(), 0o600))
		_, err := s.Cards(context.Background())
		assert.ErrorContains(t, err, "not a regular file")
	})
}

// TestRegistryReplacedDuringUpdate plays nanobot's writer, which takes no
// lock, replacing the registry between UpdateCard's read and its rename:
// the update starts over from the new file and loses nothing.
func TestRegistryReplacedDuringUpdate(t *testing.T) {
	s, _ := openRegistryStore(t)
	ctx := context.Background()
	writeRegistryRaw(t, s, []byte(`{"coder": {"agent_id": "coder"}}`))

	calls := 0
	card, err := s.UpdateCard(ctx, "gopher", func(c *envelope.Card) {
		calls++
		c.Description = "mine"
		// nanobot registers "writer": tmp file, then rename.
		tmp := s.registryPath() + ".tmp"
		require.NoError(t, os.WriteFile(tmp,
			[]byte(`{"coder": {"agent_id": "coder"}, "writer": {"agent_id": "writer"}}`), 0o644))
		require.NoError(t, os.Rename(tmp, s.registryPath()))
	})
	require.NoError(t, err)
	assert.Equal(t, 1, calls, "update runs once")
	assert.Equal(t, "mine", card.Description)

	reg := readRegistryObject(t, s)
	assert.Contains(t, reg, "coder")
	assert.Contains(t, reg, "writer", "nanobot's concurrent registration survives")
	assert.Contains(t, reg, "gopher")
}

func TestRegistryUnchanged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, registryName)
	same, err := registryUnchanged(path, nil)
	require.NoError(t, err)
	assert.True(t, same, "still no file")

	require.NoError(t, os.WriteFile(path, []byte("{}"), 0o600))
	same, err = registryUnchanged(path, nil)
	require.NoError(t, err)
	assert.False(t, same, "a file appeared")

	before, err := os.Stat(path)
	require.NoError(t, err)
	same, err = registryUnchanged(path, before)
	require.NoError(t, err)
	assert.True(t, same)

	require.NoError(t, os.WriteFile(path+".new", []byte("{}"), 0o600))
	require.NoError(t, os.Rename(path+".new", path))
	same, err = registryUnchanged(path, before)
	require.NoError(t, err)
	assert.False(t, same, "replaced by rename")

	require.NoError(t, os.Remove(path))
	same, err = registryUnchanged(path, before)
	require.NoError(t, err)
	assert.False(t, same, "removed")
}

func TestRegistryManyGoroutinesLoseNothing(t *testing.T) {
	s, _ := openRegistryStore(t)
	ctx := context.Background()
	const writers, rounds = 50, 20

	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			id := fmt.Sprintf("agent-%02d", w)
			for range rounds {
				// max_concurrent_tasks counts this agent's updates: a
				// lost update shows as a short count.
				_, err := s.UpdateCard(ctx, id, func(c *envelope.Card) {
					c.MaxConcurrentTasks++
					c.LastHeartbeat = envelope.NewTime(time.Now())
				})
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	// Sample while the writers run: every read parses, and an agent seen
	// once is seen in every later sample.
	seen := map[string]bool{}
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		cards, err := s.Cards(ctx)
		require.NoError(t, err)
		now := map[string]bool{}
		for _, c := range cards {
			now[c.AgentID] = true
		}
		for id := range seen {
			require.True(t, now[id], "agent %s vanished", id)
		}
		seen = now
	}
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	cards, err := s.Cards(ctx)
	require.NoError(t, err)
	require.Len(t, cards, writers)
	for i, c := range cards {
		assert.Equal(t, fmt.Sprintf("agent-%02d", i), c.AgentID, "sorted by id")
		assert.Equal(t, rounds, c.MaxConcurrentTasks, "updates of %s lost", c.AgentID)
	}
}

// TestRegistryNanobotFile reads a registry exactly as nanobot writes it
// (testdata/nanobot_registry.json: json.dump with indent=2 and
// ensure_ascii=False, isoformat timestamps) and checks that updating a
// different agent leaves nanobot's entries as they were.
func TestRegistryNanobotFile(t *testing.T) {
	s, _ := openRegistryStore(t)
	ctx := context.Background()
	golden, err := os.ReadFile(filepath.Join("testdata", "nanobot_registry.json"))
	require.NoError(t, err)
	writeRegistryRaw(t, s, golden)

	at := func(s string) envelope.Time {
		tm, err := envelope.ParseTime(s)
		require.NoError(t, err)
		return tm
	}
	want := []envelope.Card{
		{
			AgentID: "coder", Description: "负责代码编写和修改的 agent",
			Capabilities: []string{"code_write", "test_run", "review"}, Status: envelope.StatusIdle,
			AllowFrom: []string{"*"}, MaxConcurrentTasks: 3, CurrentTasks: []string{},
			RegisteredAt:  at("2026-04-26T10:00:30.123456Z"),
			LastHeartbeat: at("2026-04-26T10:05:30.654321Z"),
		},
		{
			AgentID: "researcher", Description: "负责信息检索和分析的 agent",
			Capabilities: []string{"web_search", "code_analysis", "summarization"}, Status: envelope.StatusIdle,
			AllowFrom: []string{"coder", "writer"}, MaxConcurrentTasks: 3,
			CurrentTasks:  []string{"msg_1745659200_coder"},
			RegisteredAt:  at("2026-04-26T10:00:00Z"),
			LastHeartbeat: at("2026-04-26T10:05:00.25Z"),
		},
	}
	cards, err := s.Cards(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, cards)

	hbNow := time.Date(2026, 4, 26, 10, 5, 10, 0, time.UTC)
	assert.Equal(t, envelope.StatusBusy, cards[1].EffectiveStatus(hbNow, 30*time.Second),
		"researcher has a current task")
	assert.Equal(t, envelope.StatusOffline, cards[1].EffectiveStatus(hbNow.Add(time.Minute), 30*time.Second),
		"a stale heartbeat is offline although the card says idle")

	_, err = s.UpdateCard(ctx, "gopher", func(c *envelope.Card) {
		c.Description = "Go agent"
		c.Capabilities = []string{"code_write"}
	})
	require.NoError(t, err)

	var orig map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(golden, &orig))
	after := readRegistryObject(t, s)
	for _, id := range []string{"researcher", "coder"} {
		assert.Equal(t, compactJSON(t, orig[id]), compactJSON(t, after[id]),
			"nanobot's entry %q is written back exactly", id)
	}
	cards, err = s.Cards(ctx)
	require.NoError(t, err)
	require.Len(t, cards, 3)
	assert.Equal(t, []envelope.Card{want[0], cards[1], want[1]}, cards)
	assert.Equal(t, "gopher", cards[1].AgentID)
	assert.Contains(t, string(readRegistryRaw(t, s)), "负责信息检索和分析的 agent", "non-ASCII text stays readable")
}
