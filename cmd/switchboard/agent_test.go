package main_test

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// terminalConfig is the config of the agent a person talks to from the
// terminal: a mailbox, and no chat channel.
const terminalConfig = `{
  "agents": {"defaults": {"workspace": "~/.nanobot/researcher"}},
  "channels": {"mailbox": {"enabled": true, "agentId": "researcher", "description": "talks with the user"}}
}`

// TestAgentMessagePrintsTheDelegatedResult is issue 27's story of the
// terminal: `switchboard agent -m "ask coder to sort 3 1 2"` delegates to
// coder, a second process (switchboard run, a mailbox-only config), and
// prints the result that comes back to its terminal session.
func TestAgentMessagePrintsTheDelegatedResult(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	coder := s.start("--config", s.writeConfig("coder.json", coderConfig), "run")
	coder.awaitStderr("host running")

	r := s.run("--config", s.writeConfig("researcher.json", terminalConfig), "agent", "-m", "ask coder to sort 3 1 2")
	require.Equal(t, 0, r.code, "stderr:\n%s", r.stderr)
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, lines, 3, "stdout:\n%s", r.stdout)
	assert.Regexp(t, `^I asked coder to sort 3 1 2 \(task task_\S+\)\. I'll tell you when it's done\.$`, lines[0])
	assert.Equal(t, "coder accepted the task and is working on it.", lines[1])
	assert.Equal(t, "coder finished: 1 2 3", lines[2])
	assert.Empty(t, r.stderr, "no logs without --logs")
	assert.Equal(t, "offline", agentCard(t, s, "researcher")["status"], "the agent left the mailbox when the command ended")

	coder.signal(sigterm)
	assert.Equal(t, 0, coder.wait(), "stderr:\n%s", coder.stderrSoFar())
}

// TestAgentPromptShowsTheDelegatedResult: at the prompt, the result of a
// delegated task arrives in the same session while the person waits, and
// exit leaves.
func TestAgentPromptShowsTheDelegatedResult(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	coder := s.start("--config", s.writeConfig("coder.json", coderConfig), "run")
	coder.awaitStderr("host running")

	cmd := s.command(context.Background(), "--config", s.writeConfig("researcher.json", terminalConfig), "agent", "-s", "work")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := make(chan string, 16)
	go func() {
		for sc := bufio.NewScanner(stdout); sc.Scan(); {
			lines <- sc.Text()
		}
		close(lines)
	}()

	_, err = stdin.Write([]byte("ask coder to sort 9 8 7\n"))
	require.NoError(t, err)
	assert.Regexp(t, `^researcher: I asked coder to sort 9 8 7 \(task task_\S+\)`, testkit.Recv(t, lines, "the answer"))
	assert.Equal(t, "researcher: coder accepted the task and is working on it.", testkit.Recv(t, lines, "the acceptance"))
	assert.Equal(t, "researcher: coder finished: 7 8 9", testkit.Recv(t, lines, "the result"))
	_, err = stdin.Write([]byte("exit\n"))
	require.NoError(t, err)
	require.NoError(t, cmd.Wait(), "stderr:\n%s", stderr.String())
	session, err := os.ReadFile(filepath.Join(s.home, ".nanobot", "researcher", "sessions", "terminal%3Awork.jsonl"))
	require.NoError(t, err)
	assert.Contains(t, string(session), `"content":"coder finished: 7 8 9"`, "the conversation is the terminal session's")

	coder.signal(sigterm)
	assert.Equal(t, 0, coder.wait())
}

// TestAgentMessageFailures: the agent that cannot answer, a task still
// open after --wait, a bad flag, and run refusing a terminal nobody reads.
func TestAgentMessageFailures(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusInternalServerError)
	}))
	defer down.Close()
	conf := s.writeConfig("down.json", `{"agents": {"defaults": {"provider": "openai"}},
		"providers": {"openai": {"apiKey": "k", "apiBase": "`+down.URL+`/v1", "model": "m", "maxRetries": 0}}}`)
	r := s.run("--config", conf, "agent", "-m", "hello")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "switchboard: the agent could not answer: the model could not be reached\n", r.stderr)
	assert.Empty(t, r.stdout)

	coder := s.start("--config", s.writeConfig("coder.json", coderConfig), "run")
	coder.awaitStderr("host running")
	coder.signal(sigterm)
	require.Equal(t, 0, coder.wait())
	r = s.run("--config", s.writeConfig("researcher.json", terminalConfig), "agent", "-m", "ask coder to sort 2 1", "--wait", "0.2")
	assert.Equal(t, 1, r.code, "coder is offline: the task stays open")
	assert.Regexp(t, `^I asked coder to sort 2 1 \(task task_\S+\)`, r.stdout)
	assert.Regexp(t, `^switchboard: delegated task task_\S+ \(coder\) not finished within --wait 200ms; results come back to session terminal:direct later`, r.stderr)

	r = s.run("agent", "-m", "hello", "--wait", "0")
	assert.Equal(t, 0, r.code, "stderr: %s", r.stderr)
	assert.Contains(t, r.stdout, "I can sort numbers", "no config: the scripted provider answers")

	r = s.run("agent", "--wait", "-1")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "--wait -1: want a number of seconds from 0 to 86400")
	r = s.run("agent", "-m", " ")
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "-m: the message is empty")

	r = s.run("--config", s.writeConfig("run.json", `{"channels": {"terminal": {"enabled": true}}}`), "run")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stderr, "channels.terminal: nobody is at the terminal")
}
