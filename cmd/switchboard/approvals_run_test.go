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

// approvalRig runs agents that ask for approval, each a `switchboard run`
// with a Feishu stub (its chat is where the user talks) and the mailbox on
// the rig's store, and the operator's commands on the same store.
type approvalRig struct {
	t *testing.T
	// cli runs the operator's commands (approvals, log).
	cli *sandbox
	// mailbox are extra keys of channels.mailbox (the backend).
	mailbox string
	// as returns the sandbox that runs an agent with config conf.
	as func(conf string) (*sandbox, []string)
}

// fsRig is the rig on the folder store of a fresh sandbox.
func fsRig(t *testing.T) *approvalRig {
	s := newSandbox(t)
	return &approvalRig{t: t, cli: s, as: func(conf string) (*sandbox, []string) { return s, []string{"--config", conf} }}
}

// natsRig is the rig on an embedded NATS server.
func natsRig(t *testing.T) *approvalRig {
	w := newNATSWorld(t)
	return &approvalRig{t: t, cli: w.sandbox, mailbox: fmt.Sprintf(`, "backend": "nats", "nats": {"url": %q}`, w.url),
		as: func(conf string) (*sandbox, []string) { return w.as(conf), nil }}
}

// chatAgent is a running agent and the webhook of its chat.
type chatAgent struct {
	*proc
	id, webhook string
}

// start starts agent id with agents.defaults.approval set to approval
// (JSON) and returns it once it runs.
func (r *approvalRig) start(id, approval string) *chatAgent {
	r.t.Helper()
	conf := r.cli.writeConfig(id+".json", fmt.Sprintf(`{
  "agents": {"defaults": {"workspace": "~/.nanobot/%[1]s", "approval": %[2]s}},
  "channels": {
    "feishu-stub": {"enabled": true, "listen": "127.0.0.1:0", "outbox": "~/.nanobot/%[1]s-outbox.jsonl"},
    "mailbox": {"enabled": true, "agentId": %[1]q, "capabilities": ["sorting"]%[3]s}
  }
}`, id, approval, r.mailbox))
	s, args := r.as(conf)
	p := s.start(append(args, "run")...)
	m := webhookAttr.FindStringSubmatch(p.awaitLine("host running"))
	require.NotNil(r.t, m, "%s logs its webhook", id)
	return &chatAgent{proc: p, id: id, webhook: m[1]}
}

var approvalRef = regexp.MustCompile(`\(approval ([0-9A-Za-z-]+)\)`)

// ask posts text from the user of chat and returns the id of the approval
// the agent asks there for.
func (a *chatAgent) ask(t *testing.T, chat, text string) string {
	t.Helper()
	resp, err := http.Post(a.webhook, "application/json", bytes.NewReader(feishuMessage("ev_"+chat+fmt.Sprint(time.Now().UnixNano()), "ou_"+chat, chat, text)))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	q, _ := awaitChatReply(t, a.webhook, chat, "Approval needed")
	assert.Contains(t, q.Content, "Approval needed: "+a.id+" wants to run tool list_agents")
	m := approvalRef.FindStringSubmatch(q.Content)
	require.NotNil(t, m, "the question names the approval: %q", q.Content)
	return m[1]
}

// approvalState returns the state `approvals --json` gives approval id
// ("" when it is not listed).
func (r *approvalRig) approvalState(id string) (string, map[string]any) {
	r.t.Helper()
	for _, l := range decodeLines(r.t, r.cli.ok("approvals", "--json")) {
		if l["id"] == id {
			return l["state"].(string), l
		}
	}
	return "", nil
}

// awaitApprovalState runs `approvals --json` until approval id is in
// state want ("" for gone), within testkit.WaitLimit.
func (r *approvalRig) awaitApprovalState(id, want string) map[string]any {
	r.t.Helper()
	deadline := time.Now().Add(testkit.WaitLimit)
	for {
		state, line := r.approvalState(id)
		if state == want {
			return line
		}
		require.True(r.t, time.Now().Before(deadline), "approval %s: still %q, want %q", id, state, want)
	}
}

// approvalAudit returns the reasons of the audit log's approval entries
// about approval id, oldest first.
func (r *approvalRig) approvalAudit(id string) []string {
	r.t.Helper()
	var out []string
	for _, l := range decodeLines(r.t, r.cli.ok("log", "--kind", "approval", "--json")) {
		if l["ref"] == id {
			out = append(out, l["reason"].(string))
		}
	}
	return out
}

// approvedAndTimedOut: a running agent's tool call waits for approval;
// `switchboard approvals` lists it with its chat; `approvals approve ID`
// resumes the turn (the answer arrives in the chat). Another agent's
// approval times out and is denied: its user is told. Both are in the
// audit log.
func approvedAndTimedOut(t *testing.T, r *approvalRig) {
	ops := r.start("ops", `{"tools": ["list_agents"], "timeout": 120}`)
	id := ops.ask(t, "oc_alice", "list agents")
	line := r.awaitApprovalState(id, "waiting")
	assert.Equal(t, "ops", line["agent"])
	assert.Equal(t, "tool", line["kind"])
	assert.Equal(t, "run tool list_agents", line["action"])
	assert.Equal(t, "feishu", line["channel"])
	assert.Equal(t, "oc_alice", line["chat_id"])
	table := r.cli.ok("approvals")
	assert.Regexp(t, id+`\s+ops\s+.+?\s+waiting, \S+ left\s+run tool list_agents\s+\{\}\s+feishu:oc_alice`, table)

	assert.Equal(t, "approved: run tool list_agents for ops\n", r.cli.ok("approvals", "approve", id))
	awaitChatReply(t, ops.webhook, "oc_alice", "The operator approved: run tool list_agents.")
	awaitChatReply(t, ops.webhook, "oc_alice", "No other agents are online.") // the tool ran, the turn ended
	r.awaitApprovalState(id, "")                                              // the agent removed the record
	assert.Equal(t, []string{"asked: run tool list_agents ({})", "approved by operator: run tool list_agents ({})"}, r.approvalAudit(id))

	hasty := r.start("hasty", `{"tools": ["list_agents"], "timeout": 1}`)
	late := hasty.ask(t, "oc_bob", "list agents")
	awaitChatReply(t, hasty.webhook, "oc_bob", "No answer within 1s: denied, hasty will not run tool list_agents.")
	answer, _ := awaitChatReply(t, hasty.webhook, "oc_bob", "I could not list the agents")
	assert.Contains(t, answer.Content, "needs a person's approval, and none came in time: denied")
	r.awaitApprovalState(late, "")
	assertOneLineError(t, r.cli.run("approvals", "approve", late), 1, "no such approval")
	assert.Equal(t, []string{"asked: run tool list_agents ({})", "denied by timeout: run tool list_agents ({}): no answer within 1s"},
		r.approvalAudit(late))

	for _, a := range []*chatAgent{ops, hasty} {
		a.signal(sigterm)
		assert.Equal(t, 0, a.wait(), "stderr:\n%s", a.stderrSoFar())
	}
}

func TestApprovalAcrossProcessesFS(t *testing.T) {
	t.Parallel()
	approvedAndTimedOut(t, fsRig(t))
}

func TestApprovalAcrossProcessesNATS(t *testing.T) {
	t.Parallel()
	approvedAndTimedOut(t, natsRig(t))
}

// TestApprovalOfACrashedAgent: an agent killed while it waits leaves its
// approval; past the deadline `approvals` shows it expired, it cannot be
// approved, and `approvals deny` removes it. Killed again while waiting,
// the agent removes its own approval when it starts again, denied "by
// restart". Every step is in the audit log.
func TestApprovalOfACrashedAgent(t *testing.T) {
	t.Parallel()
	r := fsRig(t)
	crashy := r.start("crashy", `{"tools": ["list_agents"], "timeout": 5}`)
	id := crashy.ask(t, "oc_carol", "list agents")
	crashy.signal(os.Kill)
	crashy.wait()

	r.awaitApprovalState(id, "expired") // its deadline passes with no one waiting
	table := r.cli.ok("approvals")
	assert.Regexp(t, id+`\s+crashy\s+.+?\s+expired (\S+ ago|just now), agent gone`, table)
	assert.Contains(t, table, "1 expired: no agent waits for them")
	assertOneLineError(t, r.cli.run("approvals", "approve", id), 1, "deny it to remove it")
	assert.Equal(t, "denied: run tool list_agents for crashy (it had expired: removed)\n", r.cli.ok("approvals", "deny", id, "--reason", "cleaning up"))
	assert.Equal(t, "no approvals waiting under "+r.cli.root+"\n", r.cli.ok("approvals"))
	assert.Equal(t, []string{"asked: run tool list_agents ({})",
		"denied by operator: run tool list_agents ({}): cleaning up (expired: its agent no longer waited; removed)"}, r.approvalAudit(id))

	crashy = r.start("crashy", `{"tools": ["list_agents"], "timeout": 5}`)
	again := crashy.ask(t, "oc_carol", "list agents")
	crashy.signal(os.Kill)
	crashy.wait()
	// The two chat messages the crashed runs took in come back and ask
	// again, one after the other in their session; with a short timeout
	// both are denied well within the stop's 10 s, so the SIGTERM below
	// ends in a clean stop (with 5 s each, the second timeout raced it).
	crashy = r.start("crashy", `{"tools": ["list_agents"], "timeout": 1}`)
	state, _ := r.approvalState(again)
	assert.Empty(t, state, "removed when crashy started again")
	assert.Equal(t, []string{"asked: run tool list_agents ({})",
		"denied by restart: run tool list_agents ({}): the agent restarted; the turn that asked is gone"}, r.approvalAudit(again))
	crashy.signal(sigterm)
	assert.Equal(t, 0, crashy.wait(), "stderr:\n%s", crashy.stderrSoFar())
}

// TestTaskApprovalAcrossProcesses: a task whose text names an entry of
// coder's approval.tasks waits before any work, asked in no chat (it came
// through the mailbox) but listed by `approvals`; denied, the delegator's
// user is told "not approved: ..."; approved, the work is done.
func TestTaskApprovalAcrossProcesses(t *testing.T) {
	t.Parallel()
	r := fsRig(t)
	lead := r.start("lead", `{}`)
	r.start("coder", `{"tasks": ["sort"], "timeout": 120}`)

	waitingTask := func(chat, text string) string {
		t.Helper()
		resp, err := http.Post(lead.webhook, "application/json", bytes.NewReader(feishuMessage("ev_"+chat, "ou_"+chat, chat, text)))
		require.NoError(t, err)
		resp.Body.Close()
		awaitChatReply(t, lead.webhook, chat, "I asked coder to")
		deadline := time.Now().Add(testkit.WaitLimit)
		for {
			for _, l := range decodeLines(t, r.cli.ok("approvals", "--json")) {
				if l["agent"] == "coder" && l["state"] == "waiting" && strings.Contains(l["detail"].(string), text[len("ask coder to "):]) {
					assert.Equal(t, "task", l["kind"])
					assert.Equal(t, "work on a task from lead", l["action"])
					assert.NotEmpty(t, l["task_id"])
					assert.Nil(t, l["channel"], "a task from the mailbox is asked in no chat")
					return l["id"].(string)
				}
			}
			require.True(t, time.Now().Before(deadline), "no approval of coder's task listed")
		}
	}

	denied := waitingTask("oc_dana", "ask coder to sort 5 3 9 1")
	assert.Equal(t, "denied: work on a task from lead for coder\n", r.cli.ok("approvals", "deny", denied, "--reason", "not today"))
	awaitChatReply(t, lead.webhook, "oc_dana", "coder could not do it: not approved: denied by operator: not today")
	assert.Equal(t, []string{"asked: work on a task from lead (sort 5 3 9 1)",
		"denied by operator: work on a task from lead (sort 5 3 9 1): not today"}, r.approvalAudit(denied))

	approved := waitingTask("oc_erin", "ask coder to sort 4 2 8")
	assert.Equal(t, "approved: work on a task from lead for coder\n", r.cli.ok("approvals", "approve", approved))
	awaitChatReply(t, lead.webhook, "oc_erin", "coder finished: 2 4 8")
	r.awaitApprovalState(approved, "")
}
