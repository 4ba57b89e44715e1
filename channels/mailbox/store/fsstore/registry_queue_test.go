package fsstore

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Writers that queue their cards while a merge is under way are all served
// by the next one rewrite of the registry, whoever makes it.
func TestRegistryQueueMergesWaitingWritersInOneRewrite(t *testing.T) {
	t.Parallel()
	const writers = 20
	root := filepath.Join(t.TempDir(), "mb")
	queued := make(chan string, writers)
	var rewrites, merged atomic.Int64
	stores := make([]*Store, 4)
	for i := range stores {
		s, err := Open(Options{Root: root, NoSync: true, Logger: discardLogger()})
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		s.onQueued = func(name string) { queued <- name }
		s.onMerged = func(cards int) { rewrites.Add(1); merged.Add(int64(cards)) }
		stores[i] = s
	}
	// A merge under way: the registry's lock is held.
	unlock, err := stores[0].lockRegistry(context.Background())
	require.NoError(t, err)

	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			_, err := stores[i%len(stores)].UpdateCard(testkit.Ctx(t), fmt.Sprintf("agent-%02d", i), func(c *envelope.Card) {
				c.Description = "waiting"
			})
			assert.NoError(t, err)
		})
	}
	for range writers {
		testkit.Recv(t, queued, "a queued card")
	}
	unlock()
	wg.Wait()

	assert.Equal(t, int64(1), rewrites.Load(), "one rewrite for all of them")
	assert.Equal(t, int64(writers), merged.Load())
	cards, err := stores[1].Cards(context.Background())
	require.NoError(t, err)
	assert.Len(t, cards, writers)
	queue, err := stores[2].listQueue()
	require.NoError(t, err)
	assert.Empty(t, queue, "nothing left queued")
}

// A heartbeat that finds its copy in the registry old never waits for the
// registry's lock: it leaves the renewal to the merge under way.
func TestHeartbeatNeverWaitsForTheRegistry(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	ctx := testkit.Ctx(t)
	old := registryTestNow.Add(-time.Hour)
	_, err := s.UpdateCard(ctx, "gopher", func(c *envelope.Card) { c.LastHeartbeat = envelope.NewTime(old) })
	require.NoError(t, err)
	unlock, err := s.lockRegistry(ctx)
	require.NoError(t, err)
	card, err := s.Heartbeat(ctx, "gopher", registryTestNow, time.Second) // would wait out ctx if it waited
	require.NoError(t, err)
	assert.True(t, card.LastHeartbeat.Equal(registryTestNow))
	raw := readRegistryRaw(t, s)
	assert.Contains(t, string(raw), old.UTC().Format("2006-01-02T15:04"), "not renewed while the lock is held")

	_, err = os.Lstat(filepath.Join(s.queueDir(), renewMarker))
	require.NoError(t, err, "it asks the next merge to renew")

	unlock()
	_, err = s.UpdateCard(ctx, "other", func(*envelope.Card) {})
	require.NoError(t, err)
	var entries map[string]envelope.Card
	require.NoError(t, json.Unmarshal(readRegistryRaw(t, s), &entries))
	assert.True(t, entries["gopher"].LastHeartbeat.Equal(registryTestNow), "renewed by the next merge, whoever's")
	_, err = os.Lstat(filepath.Join(s.queueDir(), renewMarker))
	assert.ErrorIs(t, err, os.ErrNotExist, "the request is done")
}

// A card queued by a writer that died before it was merged is merged by
// the next merge, whoever's.
func TestRegistryQueueLeftoverIsMerged(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	ctx := testkit.Ctx(t)
	require.NoError(t, s.ensureQueueDir())
	raw, err := testCardJSON("crashed")
	require.NoError(t, err)
	_, err = s.enqueueCard(nil, "crashed", raw)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(s.queueDir(), "junk@00000000000000000001.json"), []byte("not json"), 0o600))

	_, err = s.UpdateCard(ctx, "gopher", func(*envelope.Card) {})
	require.NoError(t, err)
	cards, err := s.Cards(ctx)
	require.NoError(t, err)
	require.Len(t, cards, 2)
	assert.Equal(t, "crashed", cards[0].AgentID)
	queue, err := s.listQueue()
	require.NoError(t, err)
	assert.Empty(t, queue, "the junk is dropped with the rest")
}

// Updates of one card queued one after the other build on each other
// before any is merged.
func TestRegistryQueueUpdatesBuildOnQueuedCard(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	ctx := testkit.Ctx(t)
	unlock, err := s.lockRegistry(ctx)
	require.NoError(t, err)
	done := make(chan error, 2)
	queued := make(chan string, 2)
	s.onQueued = func(name string) { queued <- name }
	go func() {
		_, err := s.UpdateCard(ctx, "gopher", func(c *envelope.Card) { c.Capabilities = append(c.Capabilities, "one") })
		done <- err
	}()
	testkit.Recv(t, queued, "the first card queued")
	go func() {
		_, err := s.UpdateCard(ctx, "gopher", func(c *envelope.Card) { c.Capabilities = append(c.Capabilities, "two") })
		done <- err
	}()
	testkit.Recv(t, queued, "the second card queued")
	unlock()
	require.NoError(t, testkit.Recv(t, done, "an update"))
	require.NoError(t, testkit.Recv(t, done, "an update"))
	card, err := s.Card(ctx, "gopher")
	require.NoError(t, err)
	assert.Equal(t, []string{"one", "two"}, card.Capabilities)
}

func testCardJSON(id string) ([]byte, error) {
	return json.Marshal(envelope.Card{AgentID: id, Status: envelope.StatusIdle, Capabilities: []string{},
		AllowFrom: []string{}, CurrentTasks: []string{}, RegisteredAt: envelope.NewTime(registryTestNow),
		LastHeartbeat: envelope.NewTime(registryTestNow)})
}

func TestFindEntry(t *testing.T) {
	t.Parallel()
	ours, err := encodeRegistry(map[string]json.RawMessage{
		"a":     json.RawMessage(`{"agent_id":"a","n":{"b":1}}`),
		"b":     json.RawMessage(`{"agent_id":"b"}`),
		"é":     json.RawMessage(`{"agent_id":"é"}`),
		"b.bak": json.RawMessage(`{"agent_id":"b.bak"}`),
	})
	require.NoError(t, err)
	python := []byte("{\n  \"coder\": {\n    \"agent_id\": \"coder\",\n    \"b\": 2\n  },\n  \"b\": {\n    \"agent_id\": \"b\"\n  }\n}\n")
	for _, tt := range []struct {
		name string
		data []byte
		id   string
		want string // "" = not found by the fast path
	}{
		{"ours, first", ours, "a", `{"agent_id":"a","n":{"b":1}}`},
		{"ours, later", ours, "b", `{"agent_id":"b"}`},
		{"ours, a key with a dot", ours, "b.bak", `{"agent_id":"b.bak"}`},
		{"ours, not ASCII", ours, "é", ""},
		{"ours, missing", ours, "c", ""},
		{"python, not a nested key", python, "b", "{\n    \"agent_id\": \"b\"\n  }"},
		{"compact", []byte(`{"a":{"agent_id":"a"}}`), "a", ""},
		{"twice", []byte("{\n  \"a\": {},\n  \"a\": {\"x\": 1}\n}"), "a", ""},
		{"torn", []byte("{\n  \"a\": {\"agent_id\": "), "a", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw, ok := findEntry(tt.data, tt.id)
			if tt.want == "" {
				assert.False(t, ok)
				return
			}
			require.True(t, ok)
			var got, want any
			require.NoError(t, json.Unmarshal(raw, &got))
			require.NoError(t, json.Unmarshal([]byte(tt.want), &want))
			assert.Equal(t, want, got)
		})
	}
}

// A heartbeat's view finds its card again after rewrites that move it in
// the file (read around where it was, or the whole file when it moved
// further), and always the card the file holds.
func TestRegistryViewFollowsTheCard(t *testing.T) {
	t.Parallel()
	s, _ := openRegistryStore(t)
	// A limit per update: there are a hundred and sixty of them.
	update := func(id string, fn func(*envelope.Card)) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
		defer cancel()
		_, err := s.UpdateCard(ctx, id, fn)
		require.NoError(t, err)
	}
	for i := range 120 {
		update(fmt.Sprintf("agent-%03d", i), func(*envelope.Card) {})
	}
	check := func(what string) {
		t.Helper()
		got, err := s.viewCard("agent-100")
		require.NoError(t, err)
		want, err := s.Card(context.Background(), "agent-100")
		require.NoError(t, err)
		assert.Equal(t, want.Description, got.Description, what)
	}
	check("first read: the whole file")
	update("agent-100", func(c *envelope.Card) { c.Description = "moved a little" })
	check("a window around where it was")
	for i := range 40 { // a lot before it grows
		update(fmt.Sprintf("agent-%03d", i), func(c *envelope.Card) { c.Description = strings.Repeat("longer ", 100) })
	}
	update("agent-100", func(c *envelope.Card) { c.Description = "moved far" })
	check("moved beyond the window: the whole file")
	_, err := s.viewCard("agent-999")
	assert.ErrorIs(t, err, driver.ErrUnknownAgent)
}
