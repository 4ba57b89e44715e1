package main_test

import (
	"encoding/json"
	"io"
	"net"
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

// writeConfig writes a config file into the sandbox's home.
func (s *sandbox) writeConfig(name, content string) string {
	s.t.Helper()
	path := filepath.Join(s.home, name)
	require.NoError(s.t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// awaitReply runs `recv AGENT --count 1 --json` (it returns as soon as a
// message arrives) and returns the message.
func awaitReply(t *testing.T, recv *proc) map[string]any {
	t.Helper()
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(recv.next(recv.stdout, "the reply")), &line))
	require.Equal(t, 0, recv.wait(), "recv stderr:\n%s", recv.stderrSoFar())
	return line
}

func TestRunHost(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	conf := s.writeConfig("host.json", `{"channels": {"mailbox": {"enabled": true, "agentId": "host",
		"description": "a host", "mailboxesRoot": "/elsewhere"}}}`)

	host := s.start("--config", conf, "run") // --root replaces mailboxesRoot
	host.awaitStderr("host running")
	assert.Equal(t, "idle", agentCard(t, s, "host")["effective_status"])
	recv := s.start("recv", "researcher", "--count", "1", "--json")
	recv.awaitStderr("listening as researcher")
	ping := s.sendID("--from", "researcher", "--to", "host", "--text", "count words in a b c")

	reply := awaitReply(t, recv)
	assert.Equal(t, "3", reply["content"], "the scripted provider did the work")
	mt := reply["mailbox"].(map[string]any)
	assert.Equal(t, "host", mt["from"])
	assert.Equal(t, ping, mt["reply_to"], "an answer to a mailbox message is a reply")

	host.signal(sigterm)
	assert.Equal(t, 0, host.wait(), "stderr:\n%s", host.stderrSoFar())
	assert.Contains(t, host.stderrSoFar(), "msg=turn id="+ping+" thread="+ping+" session=mailbox:researcher from=researcher\n")
	assert.NotContains(t, host.stderrSoFar(), "count words", "message text is logged only at debug")
	assert.Equal(t, "offline", agentCard(t, s, "host")["status"])
	assert.Len(t, s.msgFiles("host", "processed"), 1)
}

// TestRunOpenAIProvider runs a host whose provider is an OpenAI-compatible
// server (a local one speaking the chat completions API).
func TestRunOpenAIProvider(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var auth, body string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		mu.Lock()
		auth, body = r.Header.Get("Authorization"), string(data)
		mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"test-model",
			"choices":[{"index":0,"message":{"role":"assistant","content":"pong"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	s := newSandbox(t)
	conf := s.writeConfig("host.json", `{"agents": {"defaults": {"provider": "openai"}},
		"providers": {"openai": {"apiKey": "test-key", "apiBase": "`+srv.URL+`/v1", "model": "test-model"}},
		"channels": {"mailbox": {"enabled": true, "agentId": "host"}}}`)

	host := s.start("--config", conf, "run")
	host.awaitStderr("provider=openai")
	recv := s.start("recv", "researcher", "--count", "1", "--json")
	recv.awaitStderr("listening as researcher")
	s.sendID("--from", "researcher", "--to", "host", "--text", "ping")

	assert.Equal(t, "pong", awaitReply(t, recv)["content"])
	mu.Lock()
	assert.Equal(t, "Bearer test-key", auth)
	assert.Contains(t, body, `"model":"test-model"`)
	assert.Contains(t, body, `[mailbox message from researcher] ping`)
	assert.Contains(t, body, `"name":"delegate_task"`, "the mailbox tools are offered")
	mu.Unlock()
	host.signal(sigterm)
	assert.Equal(t, 0, host.wait(), "stderr:\n%s", host.stderrSoFar())
}

func TestRunWithoutChannels(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	assertOneLineError(t, s.run("run"), 1, "no channel is enabled")

	conf := s.writeConfig("bad.json", `{"channels": {"mailbox": {"enabled": true}}}`)
	assertOneLineError(t, s.run("--config", conf, "run"), 1, "channels.mailbox.agentId: required")
}

func TestRunConfigErrors(t *testing.T) {
	t.Parallel()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer busy.Close()
	const mb = `"mailbox": {"enabled": true, "agentId": "host"}`
	for _, tt := range []struct {
		name, config, want string
	}{
		{"unknown provider", `{"agents": {"defaults": {"provider": "nope"}}, "channels": {` + mb + `}}`,
			`agents.defaults.provider: unknown provider "nope": want "auto", "scripted", a provider nanobot knows (`},
		{"no model", `{"agents": {"defaults": {"provider": "openai"}}, "providers": {"openai": {"apiKey": "k"}}, "channels": {` + mb + `}}`,
			`providers.openai.model: required for provider "openai" (or set agents.defaults.model)`},
		{"no key", `{"agents": {"defaults": {"provider": "openai", "model": "m"}}, "channels": {` + mb + `}}`,
			`providers.openai.apiKey: required`},
		{"bad apiBase", `{"agents": {"defaults": {"provider": "local"}}, "providers": {"local": {"apiBase": "ftp://x", "model": "m"}}, "channels": {` + mb + `}}`,
			`providers.local.apiBase: "ftp://x": want an http or https URL`},
		{"bad feishu key", `{"channels": {"feishu": {"enabled": true, "listn": "x"}}}`, `channels.feishu.listn`},
		{"feishu port taken", `{"channels": {"feishu-stub": {"enabled": true, "listen": "` + busy.Addr().String() + `"}, ` + mb + `}}`,
			`channels.feishu.listen`},
		{"bad loop setting", `{"agents": {"defaults": {"maxToolIterations": 0}}, "channels": {` + mb + `}}`,
			`agents.defaults.maxToolIterations`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := newSandbox(t)
			conf := s.writeConfig("c.json", tt.config)
			cmd := s.command(t.Context(), "--config", conf, "run")
			cmd.Env = append(cmd.Env, "OPENAI_API_KEY=") // whatever the machine has
			var out, errOut strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &errOut
			_ = cmd.Run()
			assertOneLineError(t, result{stdout: out.String(), stderr: errOut.String(), code: cmd.ProcessState.ExitCode()}, 1, tt.want)
		})
	}
}

func TestRunLogsJSON(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	conf := s.writeConfig("host.json", `{"channels": {"mailbox": {"enabled": true, "agentId": "host"}},
		"observability": {"logs": {"format": "text", "level": "error"}}}`)

	host := s.start("--config", conf, "run", "--log-format", "json", "--log-level", "info") // the flags win over the file
	host.awaitStderr(`"msg":"host running"`)
	recv := s.start("recv", "researcher", "--count", "1", "--json")
	recv.awaitStderr("listening as researcher")
	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	s.environ = append(s.environ, "TRACEPARENT=00-"+trace+"-00f067aa0ba902b7-01") // send's caller's trace
	ping := s.sendID("--from", "researcher", "--to", "host", "--text", "count words in a b c")
	awaitReply(t, recv)
	host.signal(sigterm)
	require.Equal(t, 0, host.wait(), "stderr:\n%s", host.stderrSoFar())

	var turns []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(host.stderrSoFar()), "\n") {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), "every line is JSON: %s", line)
		if rec["msg"] == "turn" {
			turns = append(turns, rec)
		}
	}
	require.Len(t, turns, 1)
	assert.Equal(t, "INFO", turns[0]["level"])
	assert.Equal(t, ping, turns[0]["id"])
	assert.Equal(t, ping, turns[0]["thread"])
	assert.Equal(t, trace, turns[0]["trace"], "a line about a message names its trace")
	assert.NotContains(t, turns[0], "text")
	assert.NotContains(t, host.stderrSoFar(), "count words")
}
