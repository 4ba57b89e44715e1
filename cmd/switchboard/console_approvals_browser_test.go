package main_test

import (
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConsoleApprovalInBrowser: a running agent's tool call waits for
// approval; the approval appears in an open console without a reload,
// with what is asked, the chat and a countdown; a read-only session sees
// it without buttons and cannot decide it; the operator approves it from
// the keyboard, the agent's turn resumes (the answer reaches the user's
// chat), and the decision is in the audit log.
func TestConsoleApprovalInBrowser(t *testing.T) {
	ctx := browser(t)
	r := fsRig(t)
	operatorURL, readOnlyURL := startConsole(t, r.cli)
	ops := r.start("ops", `{"tools": ["list_agents"], "timeout": 600}`)
	run(t, ctx, "open the console on approvals", chromedp.Navigate(operatorURL),
		chromedp.WaitVisible(`body[data-loaded]`), chromedp.WaitVisible(`#live.s-online`),
		chromedp.Evaluate(`window.sameLoad = true`, nil))
	run(t, ctx, "key 8", chromedp.KeyEvent("8")) // the eighth view, from the keyboard
	run(t, ctx, "approvals view", chromedp.WaitVisible(`#view-approvals`))
	run(t, ctx, "nothing waits", chromedp.WaitVisible(`//section[@id="view-approvals"]//p[contains(., "No approvals waiting")]`))

	id := ops.ask(t, "oc_alice", "list agents")
	row := `tr.approval[data-approval="` + id + `"]`
	run(t, ctx, "the approval appears", chromedp.WaitVisible(row+` button.approve`))
	assertNoReload(t, ctx)
	assertText(t, ctx, row+` td[data-label="Agent"]`, "ops")
	assertText(t, ctx, row+` td[data-label="Asks to"]`, "tool run tool list_agents")
	assertText(t, ctx, row+` td[data-label="Detail"]`, "{}")
	assertText(t, ctx, row+` td[data-label="Chat"]`, "feishu:oc_alice")
	countdown := textOf(t, ctx, row+` .countdown`)
	assert.Regexp(t, `^\d+m left$`, countdown)
	assertText(t, ctx, `#approvals-count`, "1")
	screenshot(t, ctx, "console-approvals")

	// A read-only session (another tab, without the token) sees it, with
	// no buttons, and the server refuses its decision.
	tab, closeTab := chromedp.NewContext(ctx)
	defer closeTab()
	require.NoError(t, chromedp.Run(tab), "open a tab") // bound to tab, not to a step's deadline
	run(t, tab, "open read-only", chromedp.Navigate(readOnlyURL), chromedp.WaitVisible(`body[data-loaded]`),
		chromedp.Click(`nav button[data-view="approvals"]`), chromedp.WaitVisible(row))
	assertText(t, tab, row+` td:last-child`, "read-only")
	var buttons, status int
	run(t, tab, "no buttons", chromedp.Evaluate(`document.querySelectorAll('`+row+` button').length`, &buttons))
	assert.Zero(t, buttons)
	run(t, tab, "post without the token", chromedp.Evaluate(`fetch("/api/action/approve", {method: "POST",
		headers: {"Content-Type": "application/json"}, body: JSON.stringify({id: "`+id+`"})}).then(r => r.status)`,
		&status, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	assert.Equal(t, 403, status)
	state, _ := r.approvalState(id)
	assert.Equal(t, "waiting", state, "still waiting")

	run(t, ctx, "approve with the keyboard", chromedp.Focus(row+` button.approve`), chromedp.KeyEvent("\r"),
		chromedp.WaitNotPresent(row), chromedp.WaitVisible(`//p[@id="notice"][contains(., "approved `+id+`")]`))
	awaitChatReply(t, ops.webhook, "oc_alice", "The operator approved: run tool list_agents.")
	awaitChatReply(t, ops.webhook, "oc_alice", "No other agents are online.") // the turn went on
	run(t, ctx, "the decision is in the audit log", chromedp.Click(`nav button[data-view="audit"]`),
		chromedp.WaitVisible(`//tr[@data-kind="approval"]//td[contains(., "approved by operator: run tool list_agents")]`))
	assertNoReload(t, ctx)
	run(t, tab, "gone from the read-only session too", chromedp.WaitNotPresent(row))
}
