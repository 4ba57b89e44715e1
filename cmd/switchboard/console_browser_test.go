package main_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// TestConsoleInBrowser drives the console in headless Chromium: an agent
// appears when its recv starts, a message sent from the command line
// appears in its thread without a reload (and shown as text, not HTML), a
// task's states move in the tasks view, a set-aside message is
// redelivered to its running receiver, and the action is in the audit
// log.
func TestConsoleInBrowser(t *testing.T) {
	ctx := browser(t)
	s := newSandbox(t)
	url, _ := startConsole(t, s)
	run(t, ctx, "open the console", chromedp.Navigate(url),
		chromedp.WaitVisible(`body[data-loaded]`), chromedp.WaitVisible(`#live.s-online`),
		chromedp.Evaluate(`window.sameLoad = true`, nil))
	assertText(t, ctx, "#mode", "operator")

	recv := s.start("recv", "coder")
	run(t, ctx, "coder appears", chromedp.WaitVisible(`tr[data-agent="coder"]`))
	s.ok("send", "--new", "--from", "lead", "--to", "reviewer", "--text", "warm-up", "--subject", "warm-up")
	run(t, ctx, "reviewer's inbox shows", chromedp.WaitVisible(`tr[data-agent="reviewer"]`))
	screenshot(t, ctx, "console-agents")

	s.ok("send", "--new", "--from", "lead", "--to", "coder", "--subject", "hello", "--expects-reply",
		"--text", "hello from the CLI <b>not bold</b>")
	recv.next(recv.stdout, "coder receives the hello")
	run(t, ctx, "the thread appears", chromedp.Click(`nav button[data-view="threads"]`),
		chromedp.WaitVisible(`//ul[@id="thread-list"]//button[contains(., "hello")]`),
		chromedp.Click(`//ul[@id="thread-list"]//button[contains(., "hello")]`),
		chromedp.WaitVisible(`//article[contains(@class,"msg")]//p[contains(., "hello from the CLI")]`))
	var html string
	run(t, ctx, "read the message", chromedp.Evaluate(`document.querySelector("article.msg p").innerHTML`, &html))
	assert.Contains(t, html, "&lt;b&gt;not bold&lt;/b&gt;", "shown as text")
	run(t, ctx, "reply owed", chromedp.WaitVisible(`//article//span[contains(., "reply owed")]`))
	assertNoReload(t, ctx)
	screenshot(t, ctx, "console-conversations")

	s.ok("send", "--new", "--from", "lead", "--to", "worker", "--type", "task", "--task-id", "t-build", "--text", "build the release")
	run(t, ctx, "the task appears", chromedp.Click(`nav button[data-view="tasks"]`),
		chromedp.WaitVisible(`[data-task="t-build"] .state.s-pending`))
	s.ok("send", "--new", "--from", "worker", "--to", "lead", "--type", "task_update", "--task-id", "t-build", "--task-state", "working")
	run(t, ctx, "working", chromedp.WaitVisible(`[data-task="t-build"] .state.s-working`))
	s.ok("send", "--new", "--from", "worker", "--to", "tester", "--type", "task", "--task-id", "t-test", "--text", "test the release")
	run(t, ctx, "a task", chromedp.WaitVisible(`[data-task="t-test"]`))
	screenshot(t, ctx, "console-tasks")
	s.ok("send", "--new", "--from", "worker", "--to", "lead", "--type", "task_update", "--task-id", "t-build", "--task-state", "completed")
	run(t, ctx, "completed", chromedp.WaitVisible(`[data-task="t-build"] .state.s-completed`))
	assertNoReload(t, ctx)

	name := setAside(t, s, "coder", "set aside, then redelivered")
	run(t, ctx, "the set-aside message shows", chromedp.Click(`nav button[data-view="setaside"]`),
		chromedp.WaitVisible(`tr.setaside[data-ref="`+name+`"] button.redeliver`))
	screenshot(t, ctx, "console-set-aside")
	run(t, ctx, "redeliver", chromedp.Click(`tr.setaside[data-ref="`+name+`"] button.redeliver`),
		chromedp.WaitNotPresent(`tr.setaside[data-ref="`+name+`"]`))
	for {
		if line := recv.next(recv.stdout, "the redelivered message"); strings.Contains(line, "set aside, then redelivered") {
			break
		}
	}

	run(t, ctx, "graph", chromedp.Click(`nav button[data-view="graph"]`), chromedp.WaitVisible(`g[data-edge="lead>coder"]`))
	screenshot(t, ctx, "console-graph")
	run(t, ctx, "the operator's action is in the audit log", chromedp.Click(`nav button[data-view="audit"]`),
		chromedp.WaitVisible(`tr[data-kind="operator"]`))
	screenshot(t, ctx, "console-audit")
	run(t, ctx, "phone width", chromedp.EmulateViewport(390, 844), chromedp.Click(`nav button[data-view="agents"]`),
		chromedp.WaitVisible(`tr[data-agent="coder"]`))
	screenshot(t, ctx, "console-phone")
}

// TestConsoleReadOnlySessionCannotAct: opened without the token, the page
// says read-only, offers no send form, its action buttons are disabled,
// and the server refuses an action posted without the token.
func TestConsoleReadOnlySessionCannotAct(t *testing.T) {
	ctx := browser(t)
	s := newSandbox(t)
	_, url := startConsole(t, s)
	name := setAside(t, s, "coder", "stays aside")
	run(t, ctx, "open read-only", chromedp.Navigate(url), chromedp.WaitVisible(`body[data-loaded]`),
		chromedp.Click(`nav button[data-view="setaside"]`),
		chromedp.WaitVisible(`tr.setaside[data-ref="`+name+`"] button.redeliver[disabled]`))
	assertText(t, ctx, "#mode", "read-only")
	var hidden bool
	run(t, ctx, "no send form", chromedp.Evaluate(`document.querySelector("#send").hidden`, &hidden))
	assert.True(t, hidden)
	screenshot(t, ctx, "console-read-only")

	var status int
	run(t, ctx, "post without the token", chromedp.Evaluate(`fetch("/api/action/redeliver", {method: "POST",
		headers: {"Content-Type": "application/json"}, body: JSON.stringify({agent: "coder", ref: "`+name+`"})}).then(r => r.status)`,
		&status, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	assert.Equal(t, 403, status)
	_, err := os.Stat(filepath.Join(s.root, "coder", "rejected", name))
	assert.NoError(t, err, "still set aside")
}

// setAside writes a message to agent, set aside in its rejected/ folder
// with a reason file, as the folder store quarantines one; it returns the
// file's name.
func setAside(t *testing.T, s *sandbox, agent, text string) string {
	t.Helper()
	msg := &envelope.Message{ID: envelope.NewID(), From: "stranger", To: agent, Timestamp: envelope.NewTime(time.Now()),
		Type: envelope.TypeMessage, TTL: 2, Trace: []string{"stranger"},
		Content: envelope.Content{Parts: []envelope.Part{envelope.TextPart(text)}}}
	data, err := envelope.Encode(msg)
	require.NoError(t, err)
	dir := filepath.Join(s.root, agent, "rejected")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	require.NoError(t, os.Chmod(filepath.Join(s.root, agent), 0o700))
	name := envelope.FileName(msg)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o600))
	reason, err := json.Marshal(map[string]any{"reason": `sender "stranger" is not allowed`, "time": time.Now().UTC(),
		"agent": agent, "file": name, "message_id": msg.ID, "from": "stranger"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, name+".reason.json"), reason, 0o600))
	return name
}

// assertText checks the text of the first element sel matches.
func assertText(t *testing.T, ctx context.Context, sel, want string) {
	t.Helper()
	assert.Equal(t, want, strings.TrimSpace(textOf(t, ctx, sel)))
}

// textOf waits until sel is visible and returns the text of the first
// element it matches, found and read in one evaluation in the page: the
// console renders a view anew on every update (a countdown's tick, an
// event), and a node found by one call (as chromedp.Text does) may be
// replaced before the next reads it, reading as "".
func textOf(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	quoted, err := json.Marshal(sel)
	require.NoError(t, err)
	var got string
	run(t, ctx, "read "+sel, chromedp.WaitVisible(sel),
		chromedp.Evaluate(`document.querySelector(`+string(quoted)+`).innerText`, &got))
	return got
}

// assertNoReload checks the page was not reloaded since it was opened.
func assertNoReload(t *testing.T, ctx context.Context) {
	t.Helper()
	var same bool
	run(t, ctx, "no reload", chromedp.Evaluate(`window.sameLoad === true`, &same))
	assert.True(t, same, "the page was reloaded")
}
