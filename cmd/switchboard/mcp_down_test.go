package main_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// toldModel is toolModel recording, for every request that ends with user
// messages, their text as the model read it (the note on the tools that
// are down comes, a message of its own, before the turn's), joined by a
// blank line.
type toldModel struct {
	mu   sync.Mutex
	told []string
}

func (m *toldModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(data, &body)
	var texts []string
	for i := len(body.Messages) - 1; i >= 0 && body.Messages[i].Role == "user"; i-- {
		text, _ := body.Messages[i].Content.(string)
		texts = append([]string{text}, texts...)
	}
	if len(texts) > 0 {
		m.mu.Lock()
		m.told = append(m.told, strings.Join(texts, "\n\n"))
		m.mu.Unlock()
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	toolModel{}.ServeHTTP(w, r)
}

// last is what the model read at the end of the last request.
func (m *toldModel) last() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.told) == 0 {
		return ""
	}
	return m.told[len(m.told)-1]
}

// TestTheModelIsToldAnMCPServerIsDown: a real MCP server (a process
// over stdio) that is down when the host starts: the model reads that it
// is down with the turn's message, and its call to the server's tool is
// answered "MCP server ... is down: ...; retrying", not "unknown tool".
// The server comes up (retried with backoff): its tools work and the
// note is gone. It dies mid-session and cannot start for a while: the
// model is told again; it comes back and its tools work again.
func TestTheModelIsToldAnMCPServerIsDown(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	model := &toldModel{}
	llm := httptest.NewServer(model)
	defer llm.Close()
	gate := filepath.Join(t.TempDir(), "up")
	server, _ := json.Marshal(map[string]any{"command": os.Args[0],
		"args": []string{"-test.run=^TestHelperMCPToolServer$"},
		"env":  map[string]string{helperEnv: "1", helperGateEnv: gate}, "toolTimeout": 20})
	conf := s.writeConfig("worker.json", `{"agents": {"defaults": {"provider": "openai"}},
		"providers": {"openai": {"apiKey": "k", "apiBase": "`+llm.URL+`/v1", "model": "m", "maxRetries": 0}},
		"channels": {"mailbox": {"enabled": true, "agentId": "worker"}},
		"tools": {"mcpServers": {"helper": `+string(server)+`}}}`)

	host := s.start("run", "--config", conf)
	host.awaitLine("host running")
	recv := s.start("recv", "user", "--json")
	recv.awaitStderr("listening as user")
	reply := func(what string) string {
		t.Helper()
		var line map[string]any
		require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, what)), &line))
		return line["content"].(string)
	}
	const down = `MCP server "helper" is down: `

	// Down at start: never connected, so the loop has not seen its tools.
	s.sendID("--from", "user", "--to", "worker", "--text", "please echo hello")
	answer := reply("the answer while the server is down")
	assert.Contains(t, answer, "tool said: error: "+down)
	assert.Contains(t, answer, "; retrying")
	assert.NotContains(t, answer, "unknown tool")
	assert.True(t, strings.HasPrefix(model.last(), "["+down), "the note first: %q", model.last())
	assert.Contains(t, model.last(), "its tools (mcp_helper_*) cannot be used until it is up.]\n\n")
	assert.True(t, strings.HasSuffix(model.last(), "please echo hello"), "the turn's message after it: %q", model.last())

	// It comes up.
	require.NoError(t, os.WriteFile(gate, nil, 0o600))
	host.awaitLine("mcp server connected")
	s.sendID("--from", "user", "--to", "worker", "--text", "echo up")
	assert.Equal(t, "tool said: echoed up", reply("the echo once it is up"))
	assert.True(t, strings.HasSuffix(model.last(), "echo up"), "no note while every server is up: %q", model.last())

	// It dies mid-session and cannot start again for a while.
	require.NoError(t, os.Remove(gate))
	s.sendID("--from", "user", "--to", "worker", "--text", "now crash")
	assert.Contains(t, reply("the answer to the crash"), "tool said: error:")
	host.awaitLine("mcp server ended; restarting")
	host.awaitLine("mcp server failed to start; retrying")
	s.sendID("--from", "user", "--to", "worker", "--text", "echo down")
	assert.Contains(t, reply("the answer while it is down again"), "tool said: error: "+down)
	assert.True(t, strings.HasPrefix(model.last(), "["+down), "the note again: %q", model.last())
	assert.True(t, strings.HasSuffix(model.last(), "echo down"), "the turn's message after it: %q", model.last())

	// It comes back.
	require.NoError(t, os.WriteFile(gate, nil, 0o600))
	host.awaitLine("mcp server connected")
	s.sendID("--from", "user", "--to", "worker", "--text", "echo back")
	assert.Equal(t, "tool said: echoed back", reply("the echo after it came back"))
	assert.True(t, strings.HasSuffix(model.last(), "echo back"), "no note once it is back: %q", model.last())

	host.signal(sigterm)
	assert.Equal(t, 0, host.wait(), "stderr:\n%s", host.stderrSoFar())
}
