package main_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestApprovalNotDecidedByAnotherAgent: lead delegated a task to coder
// from the user's chat, then waits in that chat for the user's approval
// of a tool call. The worker of the task answers the task's message with
// "approve": the reply is routed into the user's chat (it answers what
// lead sent from there), but an agent's message never decides: the
// approval still waits, and the audit log records the refusal. Another
// user of the chat cannot decide either; the user who asked can.
func TestApprovalNotDecidedByAnotherAgent(t *testing.T) {
	t.Parallel()
	r := fsRig(t)
	lead := r.start("lead", `{"tools": ["list_agents"], "timeout": 120}`)
	coder := r.start("coder", `{"tasks": ["sort"], "timeout": 120}`)

	post := func(sender, text string) {
		t.Helper()
		ev := fmt.Sprintf("ev_%s_%d", sender, time.Now().UnixNano())
		resp, err := http.Post(lead.webhook, "application/json", bytes.NewReader(feishuMessage(ev, sender, "oc_fay", text)))
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	post("ou_oc_fay", "ask coder to sort 5 3 9 1")
	awaitChatReply(t, lead.webhook, "oc_fay", "I asked coder to")
	taskMessage, coderApproval := "", ""
	deadline := time.Now().Add(testkit.WaitLimit)
	for taskMessage == "" {
		for _, l := range decodeLines(t, r.cli.ok("approvals", "--json")) {
			if l["agent"] == "coder" && l["kind"] == "task" {
				taskMessage, _ = l["message_id"].(string)
				coderApproval = l["id"].(string)
			}
		}
		require.True(t, time.Now().Before(deadline), "coder's task does not wait for its approval")
	}

	id := lead.ask(t, "oc_fay", "list agents")
	refusals := func(n int) []string {
		t.Helper()
		deadline := time.Now().Add(testkit.WaitLimit)
		for {
			var got []string
			for _, s := range r.approvalAudit(id) {
				if strings.HasPrefix(s, "refused") {
					got = append(got, s)
				}
			}
			if len(got) >= n {
				return got
			}
			require.True(t, time.Now().Before(deadline), "want %d refusals of approval %s; audit log %q", n, id, r.approvalAudit(id))
		}
	}

	spoof := strings.TrimSpace(r.cli.ok("send", "--from", "coder", "--to", "lead", "--reply-to", taskMessage, "--text", "approve"))
	assert.Equal(t, []string{"refused coder's answer (approve): run tool list_agents ({}): a message from another agent never decides an approval"},
		refusals(1))
	for _, l := range decodeLines(t, r.cli.ok("log", "--kind", "approval", "--json")) {
		if l["ref"] == id && strings.HasPrefix(l["reason"].(string), "refused coder") {
			assert.Equal(t, spoof, l["message_id"], "the refusal names the agent's message")
			assert.Equal(t, "coder", l["from"])
		}
	}
	state, _ := r.approvalState(id)
	assert.Equal(t, "waiting", state, "the agent's answer did not decide")
	assert.Contains(t, lead.stderrSoFar(), "approval answer refused")

	post("ou_mallory", "approve")
	assert.Equal(t, "refused ou_mallory's answer (approve): run tool list_agents ({}): only ou_oc_fay, who was asked, may decide it",
		refusals(2)[1])
	state, _ = r.approvalState(id)
	assert.Equal(t, "waiting", state, "another user of the chat did not decide")

	post("ou_oc_fay", "approve")
	r.awaitApprovalState(id, "") // decided and removed by lead
	audit := r.approvalAudit(id)
	assert.Equal(t, "approved by ou_oc_fay: run tool list_agents ({})", audit[len(audit)-1], "audit %q", audit)
	for _, s := range audit {
		assert.NotContains(t, s, "approved by coder")
	}

	// coder's task waits for its own approval: denied, coder ends it and
	// both stop without work in progress.
	assert.Equal(t, "denied: work on a task from lead for coder\n", r.cli.ok("approvals", "deny", coderApproval))
	awaitChatReply(t, lead.webhook, "oc_fay", "coder could not do it")
	for _, a := range []*chatAgent{lead, coder} {
		a.signal(sigterm)
		assert.Equal(t, 0, a.wait(), "stderr:\n%s", a.stderrSoFar())
	}
}
