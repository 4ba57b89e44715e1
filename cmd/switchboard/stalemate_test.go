package main_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The agent loop answers a message but never a reply (so that two of its
// agents cannot thank each other for ever): what bounces replies back and
// forth is an agent driven from outside, a nanobot agent, an MCP client's
// model with check_inbox and reply, a script. Here the command line
// plays b, and a's model where a answers a reply, while a's host runs
// and receives every one of them.

func TestStalemateOfTwoAgentsFailsTheirTaskBeforeTheHopCap(t *testing.T) {
	t.Run("folder", func(t *testing.T) { t.Parallel(); testStalemate(t, folderDrainWorld(t), false) })
	t.Run("nats", func(t *testing.T) { t.Parallel(); testStalemate(t, natsDrainWorld(t), false) })
	t.Run("owed-replies", func(t *testing.T) { t.Parallel(); testStalemate(t, folderDrainWorld(t), true) })
}

// testStalemate: a works on boss's task t1 (which waits on a subtask at
// c, offline, so that it stays open); b says hello to a about t1, a's
// model answers, and b and a answer each other's answers without
// settling anything: small talk, or (owed) each answering the other's
// question with a new question. The reply that reaches the limit is set
// aside by a's host, long before the hop cap (20), t1 fails with the
// reason "stalemate: ...", boss (the user) hears it once, and the audit
// log has it as an escalation.
func testStalemate(t *testing.T, w drainWorld, owed bool) {
	more, limits := `"capabilities": ["sorting"]`, ""
	if owed {
		limits = `, "limits": {"bounces": 10}` // the owed rule stops it first
		more += limits
	}
	c := w.start("--config", w.conf("c", more), "run") // registered, then offline
	c.awaitStderr("host running")
	c.signal(sigterm)
	require.Equal(t, 0, c.wait(), c.stderrSoFar())

	boss := w.start("--config", w.conf("boss", `"capabilities": []`), "recv", "boss", "--json")
	boss.awaitStderr("listening as boss")
	b := w.start("--config", w.conf("b", `"capabilities": []`+limits), "recv", "b", "--json")
	b.awaitStderr("listening as b")
	a := w.start("--config", w.conf("a", more), "run")
	a.awaitStderr("host running")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("a stderr:\n%s", a.stderrSoFar())
		}
	})

	w.ok("send", "--from", "boss", "--to", "a", "--type", "task", "--task-id", "t1", "--text", "ask c to sort 3 1 2")
	awaitUpdate(t, boss, "t1", "working") // its subtask waits in c's inbox
	hello := strings.TrimSpace(w.ok("send", "--from", "b", "--to", "a", "--for-task", "t1", "--text", "hello"))
	answer := awaitAnswer(t, b, hello) // a's model: it does not understand
	mb := answer["mailbox"].(map[string]any)
	assert.Equal(t, "t1", mb["task_id"])
	assert.Equal(t, map[string]any{"bounces": float64(1)}, mb["exchange"])

	// b and a answer each other: the 4th reply since the last settled one
	// (owed: the 4th request in a row answering a request) reaches a
	prev, from, to := mb["message_id"].(string), "b", "a"
	n := 3
	if owed {
		n = 5 // a plain answer, then four questions answering questions
	}
	var last string
	for i := range n {
		args := []string{"send", "--from", from, "--to", to, "--reply-to", prev, "--text", fmt.Sprintf("what do you mean (%d)?", i)}
		if owed && i > 0 {
			args = append(args, "--expects-reply")
		}
		last = strings.TrimSpace(w.ok(args...))
		if to == "b" {
			awaitAnswer(t, b, prev) // b's mailbox has it, for the next reply to name
		}
		prev, from, to = last, to, from
	}

	failed := awaitUpdate(t, boss, "t1", "failed")
	reason := fmt.Sprint(failed["mailbox"].(map[string]any)["task"].(map[string]any)["reason"])
	want := "stalemate: a and b bounced replies back and forth 4 times on task t1 without settling a reply owed " +
		"(channels.mailbox.limits.bounces: 4); the 4th, b's reply " + last + " to a, was set aside"
	if owed {
		want = "stalemate: a and b answered each other's requests with new requests 4 times in a row (2 rounds) on task t1: " +
			"the replies owed did not shrink; the 4th, b's reply " + last + " to a, was set aside"
	}
	assert.Equal(t, want, reason, "%v", failed)
	a.awaitStderr(`msg=stalemate channel=mailbox`)

	dead := decodeLines(t, w.ok("dead", "a", "--json"))
	require.Len(t, dead, 1, "the reply that would have carried it on is set aside")
	assert.Equal(t, last, dead[0]["id"])
	assert.Equal(t, want, dead[0]["reason"])
	assert.NotContains(t, a.stderrSoFar(), "maxThreadHops", "long before the hop cap")

	log := w.ok("log", "--json")
	assert.Equal(t, 1, strings.Count(log, `"kind":"escalation"`), log)
	assert.Contains(t, log, want)

	// once: nothing else tells boss of it
	for _, p := range []*proc{a, b, boss} {
		p.signal(sigterm)
	}
	for _, line := range boss.rest(boss.stdout) {
		assert.NotContains(t, line, "stalemate", "told once")
	}
	assert.Equal(t, 1, strings.Count(w.ok("log", "--json"), `"kind":"escalation"`))
}

// awaitAnswer reads recv's JSON lines until a message that answers id
// arrives, and returns it.
func awaitAnswer(t *testing.T, recv *proc, id string) map[string]any {
	t.Helper()
	for {
		var m map[string]any
		line := recv.next(recv.stdout, "the reply to "+id)
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		if mb, _ := m["mailbox"].(map[string]any); mb["reply_to"] == id {
			return m
		}
	}
}

// TestLongExchangeThatMakesProgressIsNoStalemate: boss asks a question,
// a answers it, boss asks the next one in reply to the answer, and so on
// for eight rounds (sixteen replies in one chain, four times the bounce
// limit, while a's host runs and receives every question): every round
// settles the reply owed, so nothing is set aside.
func TestLongExchangeThatMakesProgressIsNoStalemate(t *testing.T) {
	w := folderDrainWorld(t)
	boss := w.start("--config", w.conf("boss", `"capabilities": []`), "recv", "boss", "--json")
	boss.awaitStderr("listening as boss")
	a := w.start("--config", w.conf("a", `"capabilities": ["sorting"]`), "run")
	a.awaitStderr("host running")

	asked := strings.TrimSpace(w.ok("send", "--from", "boss", "--to", "a", "--expects-reply", "--text", "sort 5 1 2"))
	got := awaitAnswer(t, boss, asked) // a's model answers the first question
	assert.Equal(t, "1 2 5", got["content"])
	answer := got["mailbox"].(map[string]any)["message_id"].(string)
	for i := range 7 { // a's model records replies; its answers come from outside
		asked = strings.TrimSpace(w.ok("send", "--from", "boss", "--to", "a", "--expects-reply", "--reply-to", answer,
			"--text", fmt.Sprintf("and %d?", i)))
		answer = strings.TrimSpace(w.ok("send", "--from", "a", "--to", "boss", "--reply-to", asked, "--text", fmt.Sprint(i)))
		mb := awaitAnswer(t, boss, asked)["mailbox"].(map[string]any)
		assert.Equal(t, float64(2*i+3), mb["hop_count"], "one chain of replies")
		assert.Nil(t, mb["exchange"], "each answer settles the question")
	}
	assert.Contains(t, w.ok("dead"), "nothing set aside")
	assert.NotContains(t, w.ok("log", "--json"), `"kind":"escalation"`)
	for _, p := range []*proc{a, boss} {
		p.signal(sigterm)
		p.wait()
	}
	assert.NotContains(t, a.stderrSoFar(), "stalemate")
}
