package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDeadlockOfTwoAgentsIsShownAndBroken(t *testing.T) {
	t.Run("folder", func(t *testing.T) { t.Parallel(); testDeadlock(t, folderDrainWorld(t), false, false) })
	t.Run("nats", func(t *testing.T) { t.Parallel(); testDeadlock(t, natsDrainWorld(t), false, false) })
	t.Run("by-the-agent", func(t *testing.T) { t.Parallel(); testDeadlock(t, folderDrainWorld(t), true, false) })
	t.Run("by-the-agent-pinned", func(t *testing.T) { t.Parallel(); testDeadlock(t, folderDrainWorld(t), true, true) })
}

// testDeadlock: a's task t1 waits on its subtask at b, and b's task t2
// on its subtask at a (a is down meanwhile, so nothing moves). waits
// shows the cycle and exits 1; waits --break fails b's subtask at a (the
// youngest wait), b hears "deadlock broken" and ends t2 with it, the
// delegator (boss) is told, and the graph has no cycle left.
//
// by the agent: b, the youngest waiter, finds the cycle at two checks in
// a row (every offlineAfter) and breaks it itself.
//
// pinned: b takes no unsigned message (allowUnsigned: []) and a's key is
// in a key file b cannot read: the update b sends itself in a's name is
// signed with b's own key (sent_by b), and b takes it.
func testDeadlock(t *testing.T, w drainWorld, byAgent, pinned bool) {
	keyDir := filepath.Join(t.TempDir(), "keys")
	require.NoError(t, os.MkdirAll(keyDir, 0o700))
	confs := map[string]string{}
	for _, id := range []string{"a", "b", "c"} { // register each, then stop it
		more := `"capabilities": ["sorting"]`
		if byAgent && id == "b" {
			more += `, "offlineAfter": 2`
		}
		if pinned && id == "b" {
			more += `, "allowUnsigned": []`
		}
		if pinned && id == "a" {
			more += `, "keyFile": "` + filepath.Join(keyDir, "a.nk") + `"`
		}
		confs[id] = w.conf(id, more)
		p := w.start("--config", confs[id], "run")
		p.awaitStderr("host running")
		p.signal(sigterm)
		require.Equal(t, 0, p.wait(), p.stderrSoFar())
	}
	boss := w.start("--config", w.conf("boss", `"capabilities": []`), "recv", "boss", "--json")
	boss.awaitStderr("listening as boss")

	a := w.start("--config", confs["a"], "run")
	a.awaitStderr("host running")
	w.ok("send", "--from", "boss", "--to", "a", "--type", "task", "--task-id", "t1", "--text", "ask b to ask c to sort 1 2")
	awaitUpdate(t, boss, "t1", "working") // a waits on b
	a.signal(sigterm)
	require.Equal(t, 0, a.wait(), a.stderrSoFar())

	b := w.start("--config", confs["b"], "run")
	b.awaitStderr("host running")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("b stderr:\n%s", b.stderrSoFar())
		}
	})
	w.ok("send", "--from", "boss", "--to", "b", "--type", "task", "--task-id", "t2", "--text", "ask a to sort 3 4")
	awaitUpdate(t, boss, "t2", "working") // b waits on a

	if byAgent {
		done := awaitUpdate(t, boss, "t2", "completed")
		assert.Contains(t, done["content"], "a could not do it: deadlock broken: a → b → a: b's task t2 waited on its subtask")
		b.awaitStderr(`msg="deadlock broken" channel=mailbox cycle="a → b → a" task=t2`)
		if pinned {
			assert.Contains(t, b.stderrSoFar(), "task update taken: signed by the agent that sent it in its from's name")
			assert.NotContains(t, w.ok("dead", "b"), "deadlock broken", "b set none of its own updates aside")
		}
		r := w.run("waits")
		assert.Equal(t, 0, r.code, r.stderr)
		assert.NotContains(t, r.stdout, "deadlock")
		assert.Contains(t, w.ok("log", "--json"), `"kind":"escalation"`)
		return
	}
	r := w.run("waits")
	assert.Equal(t, 1, r.code, "a deadlock listed and not broken: exit 1; stderr %q", r.stderr)
	assert.Regexp(t, `(?m)^a +\S+ +b +\S+ +\S+`, r.stdout, "a's task waits on b")
	assert.Regexp(t, `(?m)^b +t2 +a +\S+ +pending`, r.stdout, "b's t2 waits on a")
	assert.Regexp(t, `(?m)^b +\S+ +c +\S+ +pending`, r.stdout, "b's work for a waits on c")
	m := regexp.MustCompile(`deadlock: a → b → a \(youngest wait: b's subtask (\S+) at a\)`).FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	assert.Contains(t, r.stderr, "1 deadlock(s): switchboard waits --break")

	out := w.ok("waits", "--break")
	assert.Contains(t, out, "broken: "+m[1]+" failed")
	// b's task goes on without the subtask: the scripted model reports it
	done := awaitUpdate(t, boss, "t2", "completed")
	assert.Contains(t, done["content"], "a could not do it: deadlock broken: a → b → a: b's task t2 waited on its subtask "+m[1]+" at a")

	r = w.run("waits")
	assert.Equal(t, 0, r.code, r.stderr)
	assert.NotContains(t, r.stdout, "deadlock")
	log := w.ok("log", "--json")
	assert.Contains(t, log, `"kind":"escalation"`)
	assert.True(t, strings.Contains(log, "deadlock broken: a → b → a"))
	for _, p := range []*proc{b, boss} {
		p.signal(sigterm)
		p.wait()
	}
}
