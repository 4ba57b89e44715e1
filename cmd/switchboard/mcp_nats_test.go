package main_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
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
