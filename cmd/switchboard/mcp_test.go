package main_test

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// mcpClient is the SDK's own client connected to `switchboard mcp`, with
// the inbox notifications it received.
type mcpClient struct {
	t        *testing.T
	session  *mcp.ClientSession
	notified *testkit.Log[string]
}

func connectMCP(t *testing.T, transport mcp.Transport) *mcpClient {
	t.Helper()
	c := &mcpClient{t: t, notified: testkit.NewLog[string]()}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			c.notified.Add(req.Params.URI)
		}})
	session, err := client.Connect(testkit.Ctx(t), transport, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = session.Close() })
	c.session = session
	require.NoError(t, session.Subscribe(testkit.Ctx(t), &mcp.SubscribeParams{URI: "switchboard://inbox"}))
	return c
}

// call calls a tool and returns its text, failing the test on an error.
func (c *mcpClient) call(name string, args map[string]any) string {
	c.t.Helper()
	text, isErr := c.try(name, args)
	require.False(c.t, isErr, "%s: %s", name, text)
	return text
}

// try calls a tool and returns its text and whether it is an error.
func (c *mcpClient) try(name string, args map[string]any) (string, bool) {
	c.t.Helper()
	res, err := c.session.CallTool(testkit.Ctx(c.t), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(c.t, err, name)
	var parts []string
	for _, content := range res.Content {
		if tc, ok := content.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n"), res.IsError
}

type inboxMsg struct {
	ID           string `json:"id"`
	From         string `json:"from"`
	Type         string `json:"type"`
	Text         string `json:"text"`
	TaskID       string `json:"task_id"`
	TaskState    string `json:"task_state"`
	ExpectsReply bool   `json:"expects_reply"`
	Next         string `json:"next"`
}

// awaitMail waits for inbox notifications and takes the mail until a
// message matches; it returns that message.
func (c *mcpClient) awaitMail(what string, match func(inboxMsg) bool) inboxMsg {
	c.t.Helper()
	for {
		var out struct {
			Messages []inboxMsg `json:"messages"`
		}
		require.NoError(c.t, json.Unmarshal([]byte(c.call("check_inbox", nil)), &out))
		for _, m := range out.Messages {
			if match(m) {
				return m
			}
		}
		c.notified.Take(c.t, what, nil) // the next arrival
	}
}

func decode[T any](t *testing.T, text string) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(text), &v), text)
	return v
}

// TestMCPStdio: Claude Code's way — the client starts `switchboard mcp
// --agent claude` as a subprocess over stdio, delegates a task to a
// running switchboard agent and gets its result, sends a message, and
// answers a request it is notified of.
func TestMCPStdio(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	coder := s.start("run", "--config", s.writeConfig("coder.json", coderConfig))
	coder.awaitLine("host running")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := connectMCP(t, &mcp.CommandTransport{Command: s.command(ctx, "mcp", "--agent", "claude", "--capability", "code-review")})

	agents := decode[[]map[string]any](t, c.call("list_agents", nil))
	var ids []string
	for _, a := range agents {
		ids = append(ids, a["agent_id"].(string))
	}
	assert.Contains(t, ids, "coder")
	assert.Contains(t, ids, "claude")

	// delegate a task and receive its result
	task := decode[map[string]any](t, c.call("delegate_task", map[string]any{"to": "coder", "task": "sort 5 3 9 1"}))
	taskID := task["task_id"].(string)
	done := c.awaitMail("the task's result", func(m inboxMsg) bool {
		return m.TaskID == taskID && m.TaskState == "completed"
	})
	assert.Equal(t, "task_update", done.Type)
	assert.Contains(t, done.Text, "1 3 5 9")

	// send a message to an agent that is not running: it waits in its inbox
	sent := decode[map[string]any](t, c.call("send_message", map[string]any{"to": "bob", "text": "hello bob"}))
	assert.NotEmpty(t, sent["message_id"])
	assert.Contains(t, s.ok("inbox", "bob", "--json"), "hello bob")

	// a request arrives, is notified, and is answered
	reqID := strings.TrimSpace(s.ok("send", "--from", "bob", "--to", "claude", "--text", "are the tests green?", "--expects-reply"))
	req := c.awaitMail("bob's request", func(m inboxMsg) bool { return m.ID == reqID })
	assert.True(t, req.ExpectsReply)
	pending := c.call("pending", nil)
	assert.Contains(t, pending, reqID)
	c.call("reply", map[string]any{"message_id": reqID, "text": "yes, all green"})
	assert.Regexp(t, regexp.MustCompile(`"reply_to":\s*"`+reqID+`"`), s.ok("inbox", "bob", "--json"))

	assert.Positive(t, c.notified.Count(nil), "the inbox notifications")

	// errors say what to do
	text, isErr := c.try("reply", map[string]any{"message_id": "nope", "text": "x"})
	assert.True(t, isErr)
	assert.Contains(t, text, "check_inbox")
}

// TestMCPStreamableHTTP: `switchboard mcp --listen` without --agent; the
// client registers, is notified of a task, and completes it.
func TestMCPStreamableHTTP(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	srv := s.start("mcp", "--listen", "127.0.0.1:0")
	url := regexp.MustCompile(`http://\S+/mcp`).FindString(srv.awaitLine("serving MCP on"))
	c := connectMCP(t, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1})

	text, isErr := c.try("check_inbox", nil)
	assert.True(t, isErr)
	assert.Contains(t, text, "register")
	c.call("register", map[string]any{"agent_id": "codex", "description": "writes code", "capabilities": []string{"coding"}})
	assert.Contains(t, s.ok("agents", "--json"), `"codex"`)

	out := strings.TrimSpace(s.ok("send", "--from", "bob", "--to", "codex", "--type", "task", "--task-id", "t-1", "--text", "write a sort"))
	require.NotEmpty(t, out)
	task := c.awaitMail("bob's task", func(m inboxMsg) bool { return m.TaskID == "t-1" })
	assert.Equal(t, "task", task.Type)
	c.call("update_task", map[string]any{"task_id": "t-1", "state": "progress", "text": "half done"})
	c.call("update_task", map[string]any{"task_id": "t-1", "state": "complete", "text": "func sort() {}", "data": map[string]any{"lines": 1}})
	bob := s.ok("inbox", "bob", "--json")
	assert.Contains(t, bob, "half done")
	assert.Contains(t, bob, "func sort() {}")
	assert.Contains(t, bob, `"completed"`)

	srv.signal(os.Interrupt)
	assert.Equal(t, 0, srv.wait())
}

func TestMCPBadAgentIsAUsageError(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	assertOneLineError(t, s.run("mcp", "--agent", "../x"), 2, "--agent")
}

// TestMCPCanceledTask: a task the client was given is canceled by its
// sender; check_inbox says so, not that it is an update of a task the
// client delegated.
func TestMCPCanceledTask(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := connectMCP(t, &mcp.CommandTransport{Command: s.command(ctx, "mcp", "--agent", "claude")})

	s.ok("send", "--from", "bob", "--to", "claude", "--type", "task", "--task-id", "t-1", "--text", "write a sort")
	c.awaitMail("bob's task", func(m inboxMsg) bool { return m.TaskID == "t-1" && m.Type == "task" })
	assert.Contains(t, s.ok("cancel", "t-1", "--reason", "not needed"), "canceled task t-1 (bob → claude)")
	got := c.awaitMail("the cancel", func(m inboxMsg) bool { return m.TaskID == "t-1" && m.TaskState == "canceled" })
	assert.Equal(t, "bob", got.From)
	assert.Equal(t, "task t-1 was canceled by its sender bob: stop working on it; nothing to answer", got.Next)
}
