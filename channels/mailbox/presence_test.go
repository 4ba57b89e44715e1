package mailbox_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

func TestStartRegistersCard(t *testing.T) {
	e := newEnv(t)
	clk := clock.NewManual(time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC))
	cfg := e.config("coder")
	cfg.Description, cfg.Capabilities = "writes code", []string{"code_write", "review"}
	cfg.AllowFrom, cfg.MaxConcurrentTasks, cfg.Roles = []string{"researcher"}, 2, []string{"builder"}
	e.start(t, cfg, mailbox.Options{Clock: clk})

	c := e.card(t, "coder")
	assert.Equal(t, "coder", c.AgentID)
	assert.Equal(t, "writes code", c.Description)
	assert.Equal(t, []string{"code_write", "review"}, c.Capabilities)
	assert.Equal(t, []string{"builder"}, c.Roles)
	assert.Equal(t, envelope.StatusIdle, c.Status)
	assert.Equal(t, []string{"researcher"}, c.AllowFrom)
	assert.Equal(t, 2, c.MaxConcurrentTasks)
	assert.Empty(t, c.CurrentTasks)
	assert.True(t, c.RegisteredAt.Equal(clk.Now()), "registered_at %v", c.RegisteredAt)
	assert.True(t, c.LastHeartbeat.Equal(clk.Now()), "last_heartbeat %v", c.LastHeartbeat)
	assert.Equal(t, os.Getpid(), c.PID)

	// What nanobot reads: the registry file keyed by agent id, snake_case.
	data, err := os.ReadFile(e.root + "/_registry.json")
	require.NoError(t, err)
	for _, key := range []string{`"coder"`, `"agent_id"`, `"allow_from"`, `"max_concurrent_tasks"`,
		`"current_tasks"`, `"last_heartbeat"`, `"registered_at"`} {
		assert.Contains(t, string(data), key)
	}
}

func TestHeartbeatRenewsLastHeartbeat(t *testing.T) {
	e := newEnv(t)
	start := time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)
	clk := clock.NewManual(start)
	cfg := e.config("coder")
	cfg.HeartbeatInterval, cfg.OfflineAfter = 0.02, 30
	e.start(t, cfg, mailbox.Options{Clock: clk})
	registered := e.waitCard(t, "coder", "registered", func(c envelope.Card) bool { return true })
	require.True(t, registered.LastHeartbeat.Equal(start))

	later := start.Add(7 * time.Second)
	clk.Set(later)
	c := e.waitCard(t, "coder", "heartbeat", func(c envelope.Card) bool { return c.LastHeartbeat.Equal(later) })
	assert.Equal(t, envelope.StatusIdle, c.Status)
	assert.True(t, c.RegisteredAt.Equal(start), "a heartbeat keeps registered_at")
	assert.True(t, e.card(t, "coder").LastHeartbeat.Equal(later))
}

// A heartbeat heals a card another writer dropped (nanobot's unlocked
// writer can lose other agents' entries).
func TestHeartbeatRestoresLostCard(t *testing.T) {
	e := newEnv(t)
	start := time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)
	clk := clock.NewManual(start)
	cfg := e.config("coder")
	cfg.Capabilities, cfg.HeartbeatInterval, cfg.OfflineAfter = []string{"review"}, 0.02, 30
	e.start(t, cfg, mailbox.Options{Clock: clk})

	e.waitCard(t, "coder", "registered", func(envelope.Card) bool { return true })
	tmp := filepath.Join(e.root, "_registry.json.tmp")
	require.NoError(t, os.WriteFile(tmp, []byte(`{"other": {"agent_id": "other"}}`), 0o600))
	require.NoError(t, os.Rename(tmp, filepath.Join(e.root, "_registry.json")))
	later := start.Add(time.Minute)
	clk.Set(later) // the next heartbeat finds the card gone

	c := e.waitCard(t, "coder", "restored", func(c envelope.Card) bool { return c.RegisteredAt.Equal(later) })
	assert.Equal(t, []string{"review"}, c.Capabilities)
	assert.Equal(t, []string{"*"}, c.AllowFrom)
	assert.Equal(t, 3, c.MaxConcurrentTasks)
	assert.Equal(t, envelope.StatusIdle, c.Status)
	assert.Equal(t, "other", e.card(t, "other").AgentID, "the other writer's entry is kept")
}

func TestStopMarksOffline(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	require.Equal(t, envelope.StatusIdle, e.card(t, "coder").Status)
	require.NoError(t, a.Stop(context.Background()))
	c := e.card(t, "coder")
	assert.Equal(t, envelope.StatusOffline, c.Status)
	assert.Empty(t, c.CurrentTasks)
	agents, err := view.ListAgents(context.Background(), e.store, time.Now(), time.Minute, true)
	require.NoError(t, err)
	assert.Empty(t, agents, "a stopped agent is not listed online")
	require.NoError(t, a.Stop(context.Background()), "a second Stop is harmless")
	_, err = a.Post(context.Background(), route.Request{To: "boss", Text: "hi"})
	assert.ErrorIs(t, err, mailbox.ErrNotRunning)
	_, err = a.Agents(context.Background(), false)
	assert.NoError(t, err, "the injected store stays open")
}

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

// A heartbeat the store does not answer in time is tried again at the
// next beat: the card is not rewritten meanwhile (which would ask a loaded
// server twice more), and the next beat renews the heartbeat.
func TestHeartbeatTimedOutIsNotARewrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	start := time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)
	clk := clock.NewManual(start)
	cfg := e.config("coder")
	cfg.HeartbeatInterval, cfg.OfflineAfter = 5, 30
	e.start(t, cfg, mailbox.Options{Clock: clk})
	e.waitCard(t, "coder", "registered", func(envelope.Card) bool { return true })
	updates := e.store.updates.Load()

	e.store.slowBeats.Store(2)
	for range 2 {
		clk.Add(5 * time.Second)
		now := clk.Now()
		e.store.timedOut.WaitFor(t, "the timed-out beat", func(at time.Time) bool { return at.Equal(now) })
	}
	clk.Add(5 * time.Second)
	now := clk.Now()
	e.waitCard(t, "coder", "the next beat", func(c envelope.Card) bool { return c.LastHeartbeat.Equal(now) })
	assert.Equal(t, updates, e.store.updates.Load(), "no card rewritten for the beats that timed out")
	assert.Equal(t, envelope.StatusIdle, e.card(t, "coder").Status)
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

// crashEnv names the variable that turns the test binary into an agent
// process that runs until it is killed.
const crashEnv = "SWITCHBOARD_MAILBOX_TEST_AGENT_ROOT"

// TestHelperProcess is the agent process of TestDefect7CrashedAgentIsOffline.
func TestHelperProcess(t *testing.T) {
	root := os.Getenv(crashEnv)
	if root == "" {
		t.Skip("run as a child process only")
	}
	cfg := mailbox.DefaultConfig()
	cfg.AgentID, cfg.MailboxesRoot, cfg.Fsync = "crashy", root, false
	cfg.Capabilities = []string{"web_search"}
	ch, err := mailbox.New(cfg, bus.New(1), mailbox.Options{})
	if err != nil {
		os.Exit(3)
	}
	if err := ch.Start(context.Background()); err != nil {
		os.Exit(4)
	}
	os.Stdout.WriteString("ready\n")
	select {} // until killed
}

// Defect 7: nanobot's crashed agent stays "idle" for ever. Here an agent
// killed with SIGKILL leaves an idle card behind, and others see it offline
// once its heartbeat is older than offlineAfter.
func TestDefect7CrashedAgentIsOffline(t *testing.T) {
	e := newEnv(t)
	cmd := testkit.HelperCommand("TestHelperProcess", crashEnv+"="+e.root)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		ready <- line
	}()
	select {
	case line := <-ready:
		require.Equal(t, "ready", strings.TrimSpace(line), "agent process did not start")
	case <-time.After(testkit.WaitLimit):
		cmd.Process.Kill()
		t.Fatal("agent process not ready")
	}
	require.NoError(t, cmd.Process.Kill())
	err = cmd.Wait()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "killed: %v", err)

	card := e.card(t, "crashy")
	require.Equal(t, envelope.StatusIdle, card.Status, "the crashed agent could not mark itself offline")

	clk := clock.NewManual(time.Now())
	cfg := e.config("boss")
	cfg.HeartbeatInterval, cfg.OfflineAfter = 5, 30
	boss := e.start(t, cfg, mailbox.Options{Clock: clk})
	found, err := boss.FindByCapability(context.Background(), "web_search")
	require.NoError(t, err)
	require.Len(t, found, 1, "while the heartbeat is fresh, the agent is online")
	assert.Equal(t, envelope.StatusIdle, found[0].Effective)

	clk.Set(card.LastHeartbeat.Add(31 * time.Second))
	found, err = boss.FindByCapability(context.Background(), "web_search")
	require.NoError(t, err)
	assert.Empty(t, found, "a stale heartbeat is offline whatever the card says")
	_, err = boss.PickByCapability(context.Background(), "web_search")
	assert.ErrorIs(t, err, route.ErrNoAgent)

	all, err := view.ListAgents(context.Background(), e.store, clk.Now(), 30*time.Second, false)
	require.NoError(t, err)
	byID := map[string]view.Agent{}
	for _, a := range all {
		byID[a.AgentID] = a
	}
	assert.Equal(t, envelope.StatusOffline, byID["crashy"].Effective)
	marked := e.waitCard(t, "crashy", "marked offline by a live agent", func(c envelope.Card) bool {
		return c.Status == envelope.StatusOffline
	})
	assert.True(t, marked.LastHeartbeat.Equal(card.LastHeartbeat.Time), "only the status changes")
	online, err := view.ListAgents(context.Background(), e.store, clk.Now(), 30*time.Second, true)
	require.NoError(t, err)
	for _, a := range online {
		assert.NotEqual(t, "crashy", a.AgentID)
	}
}

// A running agent marks offline, in the registry, a card whose heartbeat
// is older than offlineAfter and still says idle (its agent crashed), so
// that nanobot's readers see it offline; a card with a fresh heartbeat,
// and one that moved on meanwhile, are left alone.
func TestStaleCardsMarkedOffline(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	start := time.Now().Truncate(time.Second)
	clk := clock.NewManual(start)
	put := func(id string, heartbeat time.Time) {
		_, err := e.store.UpdateCard(context.Background(), id, func(c *envelope.Card) {
			*c = envelope.Card{AgentID: id, Status: envelope.StatusIdle, MaxConcurrentTasks: 1,
				CurrentTasks: []string{}, RegisteredAt: envelope.NewTime(start.Add(-time.Hour)),
				LastHeartbeat: envelope.NewTime(heartbeat)}
		})
		require.NoError(t, err)
	}
	put("crashed", start.Add(-time.Minute))
	put("alive", start)
	cfg := e.config("boss")
	cfg.HeartbeatInterval, cfg.OfflineAfter = 5, 30
	e.start(t, cfg, mailbox.Options{Clock: clk})

	put("alive", start.Add(29*time.Second)) // it beats on its own
	clk.Add(30 * time.Second)
	e.waitCard(t, "crashed", "marked offline", func(c envelope.Card) bool { return c.Status == envelope.StatusOffline })
	assert.Equal(t, envelope.StatusIdle, e.card(t, "alive").Status, "a fresh heartbeat is not overwritten")
	assert.True(t, e.card(t, "crashed").LastHeartbeat.Equal(start.Add(-time.Minute)), "only the status changes")
}

func TestFindByCapabilityPrefersFreeSlotsAndSkipsSelf(t *testing.T) {
	e := newEnv(t)
	withCaps := func(caps []string, slots int) func(*mailbox.Config) {
		return func(c *mailbox.Config) { c.Capabilities, c.MaxConcurrentTasks = caps, slots }
	}
	boss := e.startAgent(t, "boss", withCaps([]string{"review"}, 3))
	e.startAgent(t, "small", withCaps([]string{"review"}, 1))
	e.startAgent(t, "large", withCaps([]string{"review", "test_run"}, 5))
	e.startAgent(t, "other", withCaps([]string{"test_run"}, 9))

	found, err := boss.FindByCapability(context.Background(), "review")
	require.NoError(t, err)
	var ids []string
	for _, a := range found {
		ids = append(ids, a.AgentID)
	}
	assert.Equal(t, []string{"large", "small"}, ids, "most free slots first, never the agent itself")
	best, err := boss.PickByCapability(context.Background(), "review")
	require.NoError(t, err)
	assert.Equal(t, "large", best.AgentID)
	_, err = boss.PickByCapability(context.Background(), "translate")
	assert.ErrorIs(t, err, route.ErrNoAgent)
}

// A heartbeat from the future is distrusted: another agent's card that
// says 2099 is marked offline like a stale one, and an agent whose own
// card says 2099 writes its true heartbeat at the next beat.
func TestHeartbeatFromTheFuture(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	start := time.Now().Truncate(time.Second)
	future := envelope.NewTime(time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC))
	clk := clock.NewManual(start)
	_, err := e.store.UpdateCard(context.Background(), "ghost", func(c *envelope.Card) {
		*c = envelope.Card{AgentID: "ghost", Status: envelope.StatusIdle, MaxConcurrentTasks: 1, Capabilities: []string{"sorting"},
			CurrentTasks: []string{}, RegisteredAt: envelope.NewTime(start.Add(-time.Hour)), LastHeartbeat: future}
	})
	require.NoError(t, err)
	cfg := e.config("coder")
	cfg.HeartbeatInterval, cfg.OfflineAfter = 5, 30
	coder := e.start(t, cfg, mailbox.Options{Clock: clk})
	e.waitCard(t, "coder", "registered", func(envelope.Card) bool { return true })
	_, err = e.store.Store.UpdateCard(testkit.Ctx(t), "coder", func(c *envelope.Card) { c.LastHeartbeat = future })
	require.NoError(t, err)

	agents, err := coder.Agents(testkit.Ctx(t), true)
	require.NoError(t, err)
	for _, a := range agents {
		assert.NotEqual(t, "ghost", a.AgentID, "a heartbeat in 2099 is not taken for a live agent")
	}

	clk.Add(5 * time.Second)
	now := clk.Now()
	e.waitCard(t, "coder", "its true heartbeat", func(c envelope.Card) bool { return c.LastHeartbeat.Equal(now) })
	clk.Add(25 * time.Second) // the check of stale cards, every offlineAfter
	e.waitCard(t, "ghost", "marked offline", func(c envelope.Card) bool { return c.Status == envelope.StatusOffline })
}
