package main_test

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The escalation levels across real processes (docs/guardrails.md, "When
// work gets stuck"): `switchboard run` hosts with the scripted provider
// and a Feishu stub for the chat, on the folder store and on NATS.

// escalationAgent starts agent id with more keys of agents.defaults
// (defaults) and of channels.mailbox (mailbox), both as JSON members
// starting with a comma, and top-level keys (top, likewise); conf names
// its config file.
func (r *approvalRig) escalationAgent(conf, id, defaults, mailbox, top string) *chatAgent {
	r.t.Helper()
	path := r.cli.writeConfig(conf+".json", fmt.Sprintf(`{
  "agents": {"defaults": {"workspace": "~/.nanobot/%[1]s"%[2]s}}%[4]s,
  "channels": {
    "feishu-stub": {"enabled": true, "listen": "127.0.0.1:0", "outbox": "~/.nanobot/%[1]s-outbox.jsonl"},
    "mailbox": {"enabled": true, "agentId": %[1]q, "heartbeatInterval": 0.5, "offlineAfter": 5%[3]s%[5]s}
  }
}`, id, defaults, mailbox, top, r.mailbox))
	s, args := r.as(path)
	p := s.start(append(args, "run")...)
	m := webhookAttr.FindStringSubmatch(p.awaitLine("host running"))
	require.NotNil(r.t, m, "%s logs its webhook", id)
	return &chatAgent{proc: p, id: id, webhook: m[1]}
}

// say posts text from the user of chat to agent a's chat.
func (a *chatAgent) say(t *testing.T, chat, text string) {
	t.Helper()
	resp, err := http.Post(a.webhook, "application/json", bytes.NewReader(feishuMessage(
		"ev_"+chat+fmt.Sprint(time.Now().UnixNano()), "ou_"+chat, chat, text)))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// escalations returns `escalations --json`, by id.
func (r *approvalRig) escalations() map[string]map[string]any {
	r.t.Helper()
	out := map[string]map[string]any{}
	for _, l := range decodeLines(r.t, r.cli.ok("escalations", "--json")) {
		out[l["id"].(string)] = l
	}
	return out
}

// awaitEscalationGone waits until escalation id is no longer listed (its
// agent acted on its decision).
func (r *approvalRig) awaitEscalationGone(id string) {
	r.t.Helper()
	deadline := time.Now().Add(testkit.WaitLimit)
	for {
		if _, ok := r.escalations()[id]; !ok {
			return
		}
		require.True(r.t, time.Now().Before(deadline), "escalation %s still listed", id)
	}
}

// escalationAudit returns the reasons of the audit log's escalation
// entries about escalation id, oldest first.
func (r *approvalRig) escalationAudit(id string) []string {
	r.t.Helper()
	var out []string
	for _, l := range decodeLines(r.t, r.cli.ok("log", "--kind", "escalation", "--json")) {
		if l["ref"] == id {
			out = append(out, l["reason"].(string))
		}
	}
	return out
}

var escalationRef = regexp.MustCompile(`\(escalation ([0-9a-f-]+)\)`)

// rejectedClimbsToLead: a task for a capability whose every holder
// rejects it climbs to the lead agent, whose model reassigns it to the
// agent its escalation names; the user is told once where the request
// stands, then gets the result.
func rejectedClimbsToLead(t *testing.T, r *approvalRig) {
	refuse := `, "capabilities": ["sorting"], "allowFrom": ["nobody"]`
	bob := r.escalationAgent("bob", "bob", "", refuse, "")
	carol := r.escalationAgent("carol", "carol", "", refuse, "")
	dave := r.escalationAgent("dave", "dave", "", `, "capabilities": ["lead"]`, "")
	erin := r.escalationAgent("erin", "erin", `, "judge": "accept"`, `, "capabilities": ["*"]`, "")
	alice := r.escalationAgent("alice", "alice", "", `, "escalation": {"levels": ["dave", "human"], "timeout": 300}`, "")

	alice.say(t, "oc_ann", "ask someone who can sorting to sort 5 3 9 1")
	defer func() {
		if t.Failed() {
			t.Logf("audit:\n%s\nalice:\n%s", r.cli.ok("log", "--kind", "escalation"), alice.stderrSoFar())
		}
	}()
	status, _ := awaitChatReply(t, alice.webhook, "oc_ann", "I passed it to dave")
	assert.Contains(t, status.Content, "no one would take it")
	assert.Contains(t, status.Content, "bob: rejected (unauthorized)")
	assert.Contains(t, status.Content, "carol: rejected (unauthorized)")
	done, all := awaitChatReply(t, alice.webhook, "oc_ann", "finished: 1 3 5 9")
	assert.Contains(t, done.Content, "erin finished")
	told := 0
	for _, m := range all {
		if strings.Contains(m.Content, "stuck") {
			told++
		}
	}
	assert.Equal(t, 1, told, "the user is told once where the request stands: %v", all)

	var steps []string
	for _, l := range decodeLines(t, r.cli.ok("log", "--kind", "escalation", "--json")) {
		steps = append(steps, l["reason"].(string))
	}
	require.Len(t, steps, 3, "%q", steps)
	assert.Regexp(t, `^escalated \(rejected\): .*; asked dave$`, steps[0])
	assert.Equal(t, "decided: dave reassigned it to erin: erin could take it", steps[1])
	assert.Regexp(t, `^done: dave reassigned it to erin: erin could take it; sent to \[erin \(task \S+\)\]$`, steps[2])
	assert.Empty(t, r.escalations())
	for _, a := range []*chatAgent{alice, bob, carol, dave, erin} {
		a.signal(sigterm)
		assert.Equal(t, 0, a.wait(), "%s stderr:\n%s", a.id, a.stderrSoFar())
	}
}

func TestEscalationRejectedClimbsToLeadFS(t *testing.T) {
	t.Parallel()
	rejectedClimbsToLead(t, fsRig(t))
}

func TestEscalationRejectedClimbsToLeadNATS(t *testing.T) {
	t.Parallel()
	rejectedClimbsToLead(t, natsRig(t))
}

// modelDown is agents.defaults and the providers of an agent whose model
// cannot be reached: the tasks it accepts fail.
const modelDown = `, "provider": "custom", "model": "m", "judge": "accept"`
const modelDownProviders = `, "providers": {"custom": {"apiKey": "k", "apiBase": "http://127.0.0.1:1/v1", "maxRetries": 0}}`

// failedClimbsToHuman: a failed task climbs to the human level, asked in
// the chat the request came from; answers that cannot be read get a clear
// reply and the escalation waits on; the user's "retry" runs the task
// again and the user gets the result.
func failedClimbsToHuman(t *testing.T, r *approvalRig) {
	bob := r.escalationAgent("bob-down", "bob", modelDown, `, "capabilities": ["sorting"]`, modelDownProviders)
	alice := r.escalationAgent("alice", "alice", "", `, "escalation": {"levels": ["human"], "humanTimeout": 600}`, "")

	alice.say(t, "oc_ann", "ask bob to sort 5 3 9 1")
	q, _ := awaitChatReply(t, alice.webhook, "oc_ann", "What now?")
	assert.Contains(t, q.Content, `Your request "sort 5 3 9 1" is stuck: it failed (bob: failed (the model could not be reached))`)
	assert.Contains(t, q.Content, "1 = retry, 2 AGENT = reassign to AGENT, 3 = cancel, 4 = take over")
	m := escalationRef.FindStringSubmatch(q.Content)
	require.NotNil(t, m, "the question names the escalation: %q", q.Content)
	id := m[1]
	e := r.escalations()[id]
	require.NotNil(t, e, "listed")
	assert.Equal(t, "waiting", e["state"])
	assert.Equal(t, "human", e["at"])
	assert.Equal(t, "failed", e["trigger"])

	for _, garbage := range []string{"5", "maybe"} {
		alice.say(t, "oc_ann", garbage)
		reply, _ := awaitChatReply(t, alice.webhook, "oc_ann", fmt.Sprintf("I did not understand %q", garbage))
		assert.Contains(t, reply.Content, "still waits for your answer")
		assert.Equal(t, "waiting", r.escalations()[id]["state"])
	}

	// The model is back: bob runs on the scripted provider.
	bob.signal(sigterm)
	require.Equal(t, 0, bob.wait(), "stderr:\n%s", bob.stderrSoFar())
	bob = r.escalationAgent("bob", "bob", "", `, "capabilities": ["sorting"]`, "")
	alice.say(t, "oc_ann", "retry")
	awaitChatReply(t, alice.webhook, "oc_ann", "OK: you had it tried again")
	awaitChatReply(t, alice.webhook, "oc_ann", "bob finished: 1 3 5 9")
	r.awaitEscalationGone(id)
	steps := r.escalationAudit(id)
	require.Len(t, steps, 3, "%q", steps)
	assert.Equal(t, "decided: ou_oc_ann had it tried again", steps[1])
	for _, a := range []*chatAgent{alice, bob} {
		a.signal(sigterm)
		assert.Equal(t, 0, a.wait(), "%s stderr:\n%s", a.id, a.stderrSoFar())
	}
}

func TestEscalationFailedClimbsToHumanFS(t *testing.T) {
	t.Parallel()
	failedClimbsToHuman(t, fsRig(t))
}

func TestEscalationFailedClimbsToHumanNATS(t *testing.T) {
	t.Parallel()
	failedClimbsToHuman(t, natsRig(t))
}

// escalationSurvivesKill: the agent holding an escalation is killed; the
// escalation stays listed, `escalations decide` decides it from the
// command line, and the agent acts on it when it starts again.
func escalationSurvivesKill(t *testing.T, r *approvalRig) {
	bob := r.escalationAgent("bob-down", "bob", modelDown, `, "capabilities": ["sorting"]`, modelDownProviders)
	erin := r.escalationAgent("erin", "erin", `, "judge": "accept"`, `, "capabilities": ["*"]`, "")
	esc := `, "escalation": {"levels": ["human"], "humanTimeout": 600}`
	alice := r.escalationAgent("alice", "alice", "", esc, "")
	alice.say(t, "oc_ann", "ask bob to sort 5 3 9 1")
	q, _ := awaitChatReply(t, alice.webhook, "oc_ann", "What now?")
	id := escalationRef.FindStringSubmatch(q.Content)[1]
	// The audit log is written behind (NATS: a queue): its entry is in
	// before the kill, which is what is tested here, not the audit queue.
	for deadline := time.Now().Add(testkit.WaitLimit); len(r.escalationAudit(id)) == 0; {
		require.True(t, time.Now().Before(deadline), "the escalation is in the audit log")
	}
	alice.signal(os.Kill)
	alice.wait()

	assert.Equal(t, "waiting", r.escalations()[id]["state"])
	table := r.cli.ok("escalations")
	assert.Regexp(t, id+`\s+alice\s+\S+\s+failed\s+.+?\s+human\s+waiting, \S+ left\s+"sort 5 3 9 1": bob: failed`, table)
	assertOneLineError(t, r.cli.run("escalations", "decide", id, "reassign"), 2, "reassign needs the agent")
	assertOneLineError(t, r.cli.run("escalations", "decide", id, "later"), 2, `unknown action "later"`)
	assertOneLineError(t, r.cli.run("escalations", "decide", "nope", "retry"), 1, "no such escalation")
	assert.Regexp(t, `^decided: operator reassigned it to erin: erin is free of alice's task \S+; alice acts on it now\n$`,
		r.cli.ok("escalations", "decide", id, "reassign", "erin", "--reason", "erin is free"))
	assert.Equal(t, "decided", r.escalations()[id]["state"])
	assertOneLineError(t, r.cli.run("escalations", "decide", id, "cancel"), 1, "decided already")

	alice = r.escalationAgent("alice", "alice", "", esc, "")
	awaitChatReply(t, alice.webhook, "oc_ann", "erin finished: 1 3 5 9")
	r.awaitEscalationGone(id)
	steps := r.escalationAudit(id)
	require.Len(t, steps, 3, "%q", steps)
	assert.Equal(t, "decided: operator reassigned it to erin: erin is free", steps[1])
	for _, a := range []*chatAgent{alice, bob, erin} {
		a.signal(sigterm)
		assert.Equal(t, 0, a.wait(), "%s stderr:\n%s", a.id, a.stderrSoFar())
	}
}

func TestEscalationSurvivesKillFS(t *testing.T) {
	t.Parallel()
	escalationSurvivesKill(t, fsRig(t))
}

func TestEscalationSurvivesKillNATS(t *testing.T) {
	t.Parallel()
	escalationSurvivesKill(t, natsRig(t))
}

// TestEscalationUnansweredFailsAsBefore: a level that does not answer in
// its time hands the escalation on; past the last, the task fails as it
// would have without escalation, and the user is told plainly who was
// asked.
func TestEscalationUnansweredFailsAsBefore(t *testing.T) {
	t.Parallel()
	r := fsRig(t)
	bob := r.escalationAgent("bob-down", "bob", modelDown, `, "capabilities": ["sorting"]`, modelDownProviders)
	alice := r.escalationAgent("alice", "alice", "",
		`, "escalation": {"levels": ["dave", "cap:leads"], "timeouts": [1, 1], "on": ["failed"]}`, "")
	alice.say(t, "oc_ann", "ask bob to sort 5 3 9 1")
	awaitChatReply(t, alice.webhook, "oc_ann", "I passed it to dave") // dave is not running: it never answers
	end, all := awaitChatReply(t, alice.webhook, "oc_ann", "could not do it")
	assert.Contains(t, end.Content, "bob could not do it: it failed (bob: failed (the model could not be reached)); escalated to dave, cap:leads, no one decided in time")
	told := 0
	for _, m := range all {
		if strings.Contains(m.Content, "stuck") {
			told++
		}
	}
	assert.Equal(t, 1, told, "told once while it climbed: %v", all)
	var steps []string
	for _, l := range decodeLines(t, r.cli.ok("log", "--kind", "escalation", "--json")) {
		steps = append(steps, l["reason"].(string))
	}
	require.Len(t, steps, 3, "%q", steps)
	assert.Regexp(t, `^escalated \(failed\): .*; asked dave$`, steps[0])
	assert.Equal(t, "dave did not answer in time; level cap:leads skipped: no online agent in cap:leads", steps[1])
	assert.Regexp(t, `^unanswered: it failed .*no one decided in time$`, steps[2])
	assert.Empty(t, r.escalations())
	for _, a := range []*chatAgent{alice, bob} {
		a.signal(sigterm)
		assert.Equal(t, 0, a.wait(), "%s stderr:\n%s", a.id, a.stderrSoFar())
	}
}
