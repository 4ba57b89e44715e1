package main_test

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The A2A gateway's rows, as the docs show them (docs/a2a.md, "In agents,
// thread and the console"): `agents` lists the gateway and the connected
// A2A agent; `thread --task a2a-ID` shows an A2A client's task as the
// mailbox carried it; the console's state has the same agents and the
// task from a2a to coder.
func TestA2ARowsInAgentsThreadAndConsole(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	echo := startEcho(t, s, "echo", `{"name": "Echo Agent", "description": "says back what it is told", "version": "1.0.0",
  "supportedInterfaces": [{"url": "http://127.0.0.1:PORT", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}],
  "capabilities": {"streaming": true}, "defaultInputModes": ["text"], "defaultOutputModes": ["text"],
  "skills": [{"id": "echoing", "name": "Echo", "description": "says it back", "tags": ["echo"]}]}`)
	coder := s.start("--config", s.writeConfig("coder.json", coderA2AConfig(false)), "run")
	coder.awaitStderr("host running")
	gw, url := s.startGateway("--agent", "coder", "--connect", "echo="+echo)
	gw.awaitLine("connected A2A agent: echo is " + echo)

	ctx := testkit.Ctx(t)
	c := sdkClient(t, url)
	res, err := c.SendMessage(ctx, &a2a.SendMessageRequest{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.NewTextPart("sort 5 3 9 1"))})
	require.NoError(t, err)
	task, ok := res.(*a2a.Task)
	require.True(t, ok, "a task: %T", res)
	require.Equal(t, a2a.TaskStateCompleted, task.Status.State)
	mailboxTask := "a2a-" + string(task.ID)

	rows := map[string]map[string]any{}
	for _, l := range decodeLines(t, s.ok("agents", "--json")) {
		rows[l["agent_id"].(string)] = l
	}
	require.Contains(t, rows, "a2a")
	require.Contains(t, rows, "echo")
	assert.Equal(t, []any{"a2a-gateway"}, rows["a2a"]["roles"])
	assert.Equal(t, "A2A gateway: the tasks of A2A clients for coder", rows["a2a"]["description"])
	assert.Equal(t, "idle", rows["a2a"]["effective_status"], "online, no task under way")
	assert.Equal(t, []any{"a2a"}, rows["echo"]["roles"])
	assert.Equal(t, []any{"echoing"}, rows["echo"]["capabilities"])
	assert.Equal(t, "says back what it is told (A2A agent at "+echo+")", rows["echo"]["description"])
	assert.Equal(t, "idle", rows["echo"]["effective_status"])
	table := s.ok("agents")
	assert.Contains(t, table, "a2a-gateway")
	assert.Contains(t, table, "(A2A agent at http://") // the column is cut to the terminal

	thread := s.ok("thread", "--task", mailboxTask)
	t.Logf("thread --task %s:\n%s", mailboxTask, thread)
	assert.Contains(t, thread, "a2a")
	assert.Contains(t, thread, "sort 5 3 9 1")
	assert.Contains(t, thread, "1 3 5 9")
	var callback bool
	for _, l := range decodeLines(t, s.ok("thread", "--task", mailboxTask, "--json")) {
		raw, _ := json.Marshal(l)
		if strings.Contains(string(raw), `"a2a"`) && strings.Contains(string(raw), string(task.ID)) {
			callback = true
		}
	}
	assert.True(t, callback, "a message of the thread names a2a and the A2A task")

	con := s.start("console", "--listen", "127.0.0.1:0")
	addr, ok := strings.CutPrefix(con.next(con.stdout, "the console's address"), "console ")
	require.True(t, ok)
	base, token, _ := strings.Cut(addr, "#token=")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/api/state", nil)
	require.NoError(t, err)
	req.Header.Set("X-Console-Token", token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var state struct {
		Agents []struct {
			ID          string   `json:"id"`
			Description string   `json:"description"`
			Roles       []string `json:"roles"`
			Online      bool     `json:"online"`
		} `json:"agents"`
		Tasks []struct {
			ID    string `json:"id"`
			From  string `json:"from"`
			To    string `json:"to"`
			State string `json:"state"`
		} `json:"tasks"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&state))
	seen := map[string]bool{}
	for _, a := range state.Agents {
		switch a.ID {
		case "a2a":
			seen[a.ID] = true
			assert.Equal(t, []string{"a2a-gateway"}, a.Roles)
			assert.True(t, a.Online)
		case "echo":
			seen[a.ID] = true
			assert.Equal(t, []string{"a2a"}, a.Roles)
			assert.True(t, a.Online)
			assert.Contains(t, a.Description, "(A2A agent at "+echo+")")
		}
	}
	assert.Equal(t, map[string]bool{"a2a": true, "echo": true}, seen, "the console lists the gateway and the connected agent")
	var found bool
	for _, tk := range state.Tasks {
		if tk.ID == mailboxTask {
			found = true
			assert.Equal(t, "a2a", tk.From)
			assert.Equal(t, "coder", tk.To)
			assert.Equal(t, "completed", tk.State)
		}
	}
	assert.True(t, found, "the console shows the task %s: %+v", mailboxTask, state.Tasks)

	con.signal(sigterm)
	con.wait()
	gw.signal(sigterm)
	assert.Equal(t, 0, gw.wait(), "stderr:\n%s", gw.stderrSoFar())
	coder.signal(sigterm)
	assert.Equal(t, 0, coder.wait())
}

// `switchboard a2a serve` checks its flags and the channels.a2a section
// before it starts anything: usage errors (exit 2) name the key; a port
// taken is a failure (exit 1).
func TestA2AServeUsage(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"a2a"}, "missing subcommand: serve"},
		{[]string{"a2a", "serve", "--listen", "0.0.0.0:0", "--agent", "coder"}, "channels.a2a.token"},
		{[]string{"a2a", "serve", "--connect", "echo"}, `--connect "echo": want NAME=URL`},
		{[]string{"a2a", "serve", "--connect", "echo=not a url"}, "channels.a2a.connect.echo"},
		{[]string{"a2a", "serve", "--listen", "127.0.0.1:0"}, "channels.a2a"},
	} {
		r := s.run(c.args...)
		assert.Equal(t, 2, r.code, "%v: %s", c.args, r.stderr)
		assert.Contains(t, r.stderr, c.want, "%v", c.args)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	r := s.run("a2a", "serve", "--listen", ln.Addr().String(), "--agent", "coder")
	assert.Equal(t, 1, r.code, "a port taken: %s", r.stderr)
}
