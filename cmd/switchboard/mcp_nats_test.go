package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMCPOnNATS: the MCP server works on the NATS mailbox as on the
// folder: a client delegates a task to a switchboard agent running on the
// same NATS server and gets its result, and answers a request it is
// notified of.
func TestMCPOnNATS(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	coderConf := w.writeConfig("coder-nats.json", fmt.Sprintf(`{
  "agents": {"defaults": {"workspace": "~/.nanobot/coder"}},
  "channels": {"mailbox": {"enabled": true, "agentId": "coder", "capabilities": ["sorting"],
    "backend": "nats", "nats": {"url": %q}}}}`, w.url))
	coder := w.start("--config", coderConf, "run")
	coder.awaitLine("host running")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := connectMCP(t, &mcp.CommandTransport{Command: w.command(ctx, "mcp", "--agent", "claude")})
	task := decode[map[string]any](t, c.call("delegate_task", map[string]any{"to": "coder", "task": "sort 3 1 2"}))
	taskID := task["task_id"].(string)
	done := c.awaitMail("the task's result", func(m inboxMsg) bool {
		return m.TaskID == taskID && m.TaskState == "completed"
	})
	assert.Contains(t, done.Text, "1 2 3")

	reqID := strings.TrimSpace(w.ok("send", "--new", "--from", "bob", "--to", "claude", "--text", "green?", "--expects-reply"))
	c.awaitMail("bob's request", func(m inboxMsg) bool { return m.ID == reqID })
	c.call("reply", map[string]any{"message_id": reqID, "text": "yes"})
	assert.Contains(t, w.ok("inbox", "bob", "--json"), `"reply_to":"`+reqID+`"`)
}

// Issue 25: on NATS, after a restart, the first check_inbox of `switchboard
// mcp` could miss a message redelivered to it (it was still on its way
// from the server). The client takes bob's requests without acknowledging
// them and its server is restarted, three times: the first check_inbox
// after each start returns all of them, marked redelivered, and none is
// set aside.
func TestMCPOnNATSFirstCheckAfterRestartHasTheRedelivered(t *testing.T) {
	t.Parallel()
	w := newNATSWorld(t)
	var ids []string
	for i := range 3 {
		ids = append(ids, strings.TrimSpace(w.ok("send", "--new", "--from", "bob", "--to", "claude",
			"--text", fmt.Sprint("question ", i), "--expects-reply")))
	}
	start := func() *mcpClient {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		return connectMCP(t, &mcp.CommandTransport{Command: w.command(ctx, "mcp", "--agent", "claude")})
	}
	c := start()
	for _, id := range ids {
		c.awaitMail("bob's request", func(m inboxMsg) bool { return m.ID == id })
	}
	for round := range 6 {
		require.NoError(t, c.session.Close()) // the server stops: nothing acknowledged
		c = start()
		var out struct {
			Messages []inboxMsg `json:"messages"`
		}
		require.NoError(t, json.Unmarshal([]byte(c.call("check_inbox", nil)), &out))
		var got []string
		for _, m := range out.Messages {
			got = append(got, m.ID)
		}
		require.Equal(t, ids, got, "restart %d: the first check_inbox has every message held", round+1)
	}
	assert.NotContains(t, w.ok("dead", "claude"), "bob", "nothing set aside")
}
