package main_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// drainWorld is where a drain test runs: the sandbox the command line
// uses and the config of an agent (the folder or NATS).
type drainWorld struct {
	*sandbox
	// conf writes the config of agent id with more keys of
	// channels.mailbox and returns its path.
	conf func(id, more string) string
}

func folderDrainWorld(t *testing.T) drainWorld {
	s := newSandbox(t)
	return drainWorld{sandbox: s, conf: func(id, more string) string {
		return s.writeConfig(id+".json", fmt.Sprintf(`{"agents": {"defaults": {"workspace": "~/.nanobot/%s"}},
  "channels": {"mailbox": {"enabled": true, "agentId": %q, "heartbeatInterval": 0.5, %s}}}`, id, id, more))
	}}
}

func natsDrainWorld(t *testing.T) drainWorld {
	w := newNATSWorld(t)
	return drainWorld{sandbox: w.sandbox, conf: func(id, more string) string {
		return w.writeConfig(id+".json", fmt.Sprintf(`{"agents": {"defaults": {"workspace": "~/.nanobot/%s"}},
  "channels": {"mailbox": {"enabled": true, "agentId": %q, "heartbeatInterval": 0.5, "backend": "nats", "nats": {"url": %q}, %s}}}`,
			id, id, w.url, more))
	}}
}

// awaitUpdate reads recv's JSON lines until a task_update for task in
// state arrives, and returns it (the message as recv --json prints it:
// content, and the mailbox fields under "mailbox").
func awaitUpdate(t *testing.T, recv *proc, task, state string) map[string]any {
	t.Helper()
	for {
		var m map[string]any
		line := recv.next(recv.stdout, "task_update "+task+" "+state)
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		mb, _ := m["mailbox"].(map[string]any)
		tk, _ := mb["task"].(map[string]any)
		if mb["type"] == "task_update" && tk["id"] == task && tk["state"] == state {
			return m
		}
	}
}

func TestDrainFinishesTheTaskTakesNoNewOneAndGoesOffline(t *testing.T) {
	t.Run("folder", func(t *testing.T) { t.Parallel(); testDrain(t, folderDrainWorld(t), false) })
	t.Run("nats", func(t *testing.T) { t.Parallel(); testDrain(t, natsDrainWorld(t), false) })
	t.Run("sigusr1", func(t *testing.T) {
		if drainSignal == nil {
			t.Skip("no SIGUSR1 on this system")
		}
		t.Parallel()
		testDrain(t, folderDrainWorld(t), true)
	})
}

// testDrain: worker holds task t1, which waits for a subtask at helper
// (offline); worker is drained (switchboard drain, or SIGUSR1); it says
// draining, rejects task t2, any:sorting finds nobody; helper comes back,
// t1 completes, and worker goes offline and exits 0.
func testDrain(t *testing.T, w drainWorld, signal bool) {
	helperConf := w.conf("helper", `"capabilities": ["sorting"]`)
	helper := w.start("--config", helperConf, "run")
	helper.awaitStderr("host running")
	helper.signal(sigterm)
	require.Equal(t, 0, helper.wait(), helper.stderrSoFar())

	worker := w.start("--config", w.conf("worker", `"capabilities": ["sorting"]`), "run")
	worker.awaitStderr("host running")
	boss := w.start("--config", w.conf("boss", `"capabilities": []`), "recv", "boss", "--json")
	boss.awaitStderr("listening as boss")

	w.ok("send", "--from", "boss", "--to", "worker", "--type", "task", "--task-id", "t1", "--text", "ask helper to sort 3 1 2")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker stderr:\n%s", worker.stderrSoFar())
		}
	})
	awaitUpdate(t, boss, "t1", "working") // its subtask waits in helper's inbox

	if signal {
		worker.signal(drainSignal)
	} else {
		out := w.ok("drain", "worker")
		assert.Equal(t, "asked worker to drain: 1 task(s) in hand (t1); it takes no new task and goes offline when done\n", out)
	}
	worker.awaitStderr("mailbox draining")
	card := agentsByID(t, w.sandbox)["worker"]
	assert.Equal(t, "draining", card["status"])
	assert.Equal(t, "draining", card["effective_status"])
	assert.Equal(t, []any{"t1"}, card["current_tasks"])

	w.ok("send", "--from", "boss", "--to", "worker", "--type", "task", "--task-id", "t2", "--text", "sort 9 8")
	rejected := awaitUpdate(t, boss, "t2", "rejected")
	assert.Contains(t, rejected["mailbox"].(map[string]any)["task"].(map[string]any)["reason"], "draining: worker finishes the tasks it has and takes no new ones")
	assertOneLineError(t, w.run("send", "--from", "boss", "--to", "any:sorting", "--type", "task", "--text", "sort 5 4"), 1,
		"no online agent offers it")
	assertOneLineError(t, w.run("drain", "helper"), 1, "helper: agent not running")

	helper = w.start("--config", helperConf, "run")
	done := awaitUpdate(t, boss, "t1", "completed")
	assert.Contains(t, fmt.Sprint(done["content"]), "1 2 3")
	assert.Equal(t, 0, worker.wait(), "a drained host exits 0; stderr:\n%s", worker.stderrSoFar())
	assert.Contains(t, worker.stderrSoFar(), "mailbox drained: no task left; going offline")
	assert.Equal(t, "offline", agentsByID(t, w.sandbox)["worker"]["status"])
	log := w.ok("log", "--json")
	assert.Contains(t, log, `"kind":"drain"`)
	if !signal {
		assert.Contains(t, log, "asked worker to drain")
	}
	for _, p := range []*proc{helper, boss} {
		p.signal(sigterm)
		p.wait()
	}
	assert.False(t, strings.Contains(worker.stderrSoFar(), "panic"))
}

// TestDrainOnNATSIsNudged: on NATS, `switchboard drain` nudges the agent,
// which drains at once: with an hour between its heartbeats (when it
// would otherwise look for the request), the nudge is all that can have
// told it. With no task in hand it goes offline and exits 0.
func TestDrainOnNATSIsNudged(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	conf := w.writeConfig("worker.json", fmt.Sprintf(`{"agents": {"defaults": {"workspace": "~/.nanobot/worker"}},
  "channels": {"mailbox": {"enabled": true, "agentId": "worker", "heartbeatInterval": 3600, "offlineAfter": 7200,
  "backend": "nats", "nats": {"url": %q}}}}`, w.url))
	worker := w.start("--config", conf, "run")
	worker.awaitStderr("host running")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("worker stderr:\n%s", worker.stderrSoFar())
		}
	})
	out := w.ok("drain", "worker")
	assert.Equal(t, "asked worker to drain: no task in hand; it takes no new task and goes offline when done\n", out)
	assert.Equal(t, 0, worker.wait(), "a drained host exits 0; stderr:\n%s", worker.stderrSoFar())
	assert.Contains(t, worker.stderrSoFar(), "mailbox drained: no task left; going offline")
	assert.NotContains(t, worker.stderrSoFar(), "read at every heartbeat")
}
