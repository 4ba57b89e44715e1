package fsstore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

func TestRegistryCorruptFile(t *testing.T) {
	t.Parallel()
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

			// Readers go on with what can be read, and say so.
			read, err := s.Cards(ctx)
			require.NoError(t, err, "a corrupt registry hides no readable card")
			var readIDs []string
			for _, c := range read {
				readIDs = append(readIDs, c.AgentID)
			}
			assert.ElementsMatch(t, tt.salvaged, readIDs)
			assert.Contains(t, logs.String(), "mailbox registry is corrupt")
			assert.Contains(t, logs.String(), s.registryPath(), "the warning names the file")
			_, err = s.Card(ctx, "coder")
			if slices.Contains(tt.salvaged, "coder") {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, driver.ErrUnknownAgent)
			}

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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
		mkfifo(t, s.registryPath())
		_, err := s.Cards(context.Background())
		assert.ErrorContains(t, err, "not a regular file")
	})
}

// TestRegistryReplacedDuringUpdate plays nanobot's writer, which takes no
// lock, replacing the registry between UpdateCard's read and its rename:
// the update starts over from the new file and loses nothing.
func TestRegistryReplacedDuringUpdate(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	s, _ := openRegistryStore(t)
	ctx := context.Background()
	const writers, rounds = 50, 20

	var wg sync.WaitGroup
	errs := make(chan error, writers)
	updated := make(chan struct{}, 1) // a card changed since the last sample
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
				select {
				case updated <- struct{}{}:
				default:
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	// Sample after updates while the writers run: every read parses,
	// and an agent seen once is seen in every later sample.
	seen := map[string]bool{}
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-updated:
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
	t.Parallel()
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
