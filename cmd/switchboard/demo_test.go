package main_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// runDemo runs `switchboard demo args...` (without --root) with TMPDIR in
// the sandbox, to its end.
func runDemo(t *testing.T, s *sandbox, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*testkit.WaitLimit)
	defer cancel()
	cmd := s.command(ctx)
	cmd.Args = append(cmd.Args[:1], append([]string{"demo"}, args...)...)
	cmd.Env = append(cmd.Env, "TMPDIR="+filepath.Join(s.home, "tmp"))
	require.NoError(t, os.MkdirAll(filepath.Join(s.home, "tmp"), 0o700))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	_ = cmd.Run()
	return result{stdout: out.String(), stderr: errOut.String(), code: cmd.ProcessState.ExitCode()}
}

// TestDemo runs the README's main job: two agent processes, a Feishu
// message posted over HTTP, the answer in the user's chat.
func TestDemo(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	dir := filepath.Join(s.home, "demo")
	r := runDemo(t, s, "--dir", dir, "--timeout", "40s")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Empty(t, r.stderr)

	for _, want := range []string{
		`started researcher \(pid \d+\): Feishu stub at http://127\.0\.0\.1:\d+/feishu/events \+ mailbox`,
		`started coder +\(pid \d+\): mailbox only, capabilities sorting, counting, arithmetic`,
		`both agents are registered online`,
		`POST http://127\.0\.0\.1:\d+/feishu/events`,
		`\d\.\d{3}s  user → researcher +feishu +ask coder to sort 5 3 9 1\n`,
		`researcher → coder +mailbox task +sort 5 3 9 1\n`,
		`researcher → user +feishu +I asked coder to sort 5 3 9 1 \(task task_\S+\)\. I'll tell you when it's done\.\n`,
		`coder → researcher +mailbox task_update accepted\n`,
		`coder → researcher +mailbox task_update completed +1 3 5 9\n`,
		`researcher → user +feishu +coder accepted the task and is working on it\.\n`,
		`researcher → user +feishu +coder finished: 1 3 5 9\n`,
		`the user's chat oc_demo_chat got the answer "1 3 5 9"`,
		`stopped researcher and coder \(exit status 0; offline in the registry: coder, researcher\)\n$`,
	} {
		assert.Regexp(t, regexp.MustCompile(want), r.stdout)
	}

	// Where the user sees it: the chat's replies in the stub's outbox, and
	// the chat's session in researcher's workspace.
	chat := readOutbox(t, filepath.Join(dir, "researcher", "feishu-outbox.jsonl"))
	require.Len(t, chat, 3)
	assert.Equal(t, reply{ChatID: "oc_demo_chat", Content: "coder finished: 1 3 5 9"}, chat[2])
	session, err := os.ReadFile(filepath.Join(dir, "researcher", "workspace", "sessions", "feishu%3Aoc_demo_chat.jsonl"))
	require.NoError(t, err)
	assert.Contains(t, string(session), `"content":"coder finished: 1 3 5 9"`)

	for _, l := range decodeLines(t, s.ok("--root", filepath.Join(dir, "mailboxes"), "agents", "--json")) {
		assert.Equal(t, "offline", l["status"], "%s stopped cleanly", l["agent_id"])
	}
	assert.FileExists(t, filepath.Join(dir, "researcher.log"))
	assert.FileExists(t, filepath.Join(dir, "coder.log"))
}

func TestDemoRemovesItsTemporaryFolder(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	r := runDemo(t, s, "--timeout", "40s")
	require.Equal(t, 0, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Contains(t, r.stdout, "coder finished: 1 3 5 9")
	assert.Regexp(t, `\nremoved .*switchboard-demo-\S+ \(run with --dir DIR to keep the configs, logs and mailboxes\)\n$`, r.stdout)
	assert.Empty(t, files(t, filepath.Join(s.home, "tmp")))
}

func TestDemoErrors(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	full := filepath.Join(s.home, "full")
	require.NoError(t, os.MkdirAll(filepath.Join(full, "x"), 0o700))
	assertOneLineError(t, runDemo(t, s, "--dir", full), 2, "is not empty: name a new or empty folder")
	assertOneLineError(t, runDemo(t, s, "--timeout", "0s"), 2, "--timeout must be positive")
	assertOneLineError(t, runDemo(t, s, "extra"), 2, `unexpected argument "extra"`)
	r := s.run("demo") // the sandbox passes --root
	assertOneLineError(t, r, 2, "leave out --root and --config")

	dir := filepath.Join(s.home, "slow")
	r = runDemo(t, s, "--dir", dir, "--timeout", "1ns")
	assert.Equal(t, 1, r.code, "stderr %q", r.stderr)
	assert.Regexp(t, `^switchboard: researcher was not running in time \(log: .*researcher\.log\): took longer than --timeout 1ns\n$`, r.stderr)
	assert.FileExists(t, filepath.Join(dir, "researcher.log"), "a failed run keeps its folder")
}

// startDemo starts `switchboard demo args...` (without --root).
func startDemo(t *testing.T, s *sandbox, args ...string) *proc {
	t.Helper()
	cmd := s.command(context.Background())
	cmd.Args = append(cmd.Args[:1], append([]string{"demo"}, args...)...)
	p := &proc{t: t, cmd: cmd, stdout: make(chan string, 256), stderr: make(chan string, 256), done: make(chan struct{})}
	outPipe, err := cmd.StdoutPipe()
	require.NoError(t, err)
	errPipe, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	var readers sync.WaitGroup
	readers.Go(func() { p.lines(outPipe, p.stdout, false) })
	readers.Go(func() { p.lines(errPipe, p.stderr, true) })
	go func() {
		readers.Wait()
		_ = cmd.Wait()
		p.code = cmd.ProcessState.ExitCode()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Signal(os.Interrupt) // the demo stops its agents
			<-p.done
		}
	})
	return p
}

// awaitStdout reads stdout until a line contains want and returns it.
func (p *proc) awaitStdout(want string) string {
	p.t.Helper()
	for {
		if line := p.next(p.stdout, "waiting for "+want); strings.Contains(line, want) {
			return line
		}
	}
}

// TestDemoKeep leaves the agents running after the conversation: the
// printed webhook takes another message, and Ctrl-C stops both agents.
func TestDemoKeep(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	dir := filepath.Join(s.home, "demo")
	demo := startDemo(t, s, "--keep", "--dir", dir, "--timeout", "40s")
	demo.awaitStdout("both agents keep running; Ctrl-C stops them")
	curl := demo.awaitStdout("curl -s http://")
	m := regexp.MustCompile(`curl -s (\S+) -H 'Content-Type: application/json' -d '(.+)'$`).FindStringSubmatch(curl)
	require.NotNil(t, m, curl)
	webhook, event := m[1], m[2]

	resp, err := http.Post(webhook, "application/json", strings.NewReader(event))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	got, _ := awaitChatReply(t, webhook, "oc_demo_chat", "coder finished: 3")
	assert.Equal(t, "coder finished: 3", got.Content, "hello big world has three words")

	demo.signal(os.Interrupt)
	assert.Equal(t, 0, demo.wait(), "stderr:\n%s", demo.stderrSoFar())
	assert.Contains(t, strings.Join(demo.rest(demo.stdout), "\n"), "stopped researcher and coder (exit status 0; offline in the registry: coder, researcher)")
	assert.DirExists(t, dir)
}
