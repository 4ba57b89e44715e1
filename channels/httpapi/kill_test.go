package httpapi_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestHelperHost is the helper process of TestKillMidTurnAnsweredOnce: a
// host of the HTTP channel built from a config file through the registry,
// as `switchboard run` builds it, that prints "listening <url>" and then
// "took <id> <redelivered>" for every message the agent takes. With
// HTTP_HELPER=hold the agent never answers (a turn that does not end);
// with "answer" it answers "echo: <text>". It stops when its standard
// input closes.
func TestHelperHost(t *testing.T) {
	mode := os.Getenv("HTTP_HELPER")
	if mode == "" {
		t.Skip("the helper process of TestKillMidTurnAnsweredOnce")
	}
	cfg, err := config.Load(config.LoadOptions{Path: os.Getenv("HTTP_HELPER_CONFIG")})
	require.NoError(t, err)
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	b := bus.New(16)
	m := channels.NewManager(b, channels.ManagerConfig{Logger: logger})
	require.NoError(t, m.Build(channels.DefaultRegistry(), cfg))
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, m.Start(ctx))
	ch, _ := m.Channel("http")
	_, url := ch.(channels.Addresser).Address()
	fmt.Println("listening", url)
	go func() {
		for {
			in, err := b.ConsumeInbound(ctx)
			if err != nil {
				return
			}
			fmt.Printf("took %s %v\n", in.ID, in.Redelivered)
			if mode == "hold" {
				continue
			}
			_ = b.PublishOutbound(ctx, bus.OutboundMessage{Channel: in.Channel, ChatID: in.ChatID,
				Content: "echo: " + in.Content, Metadata: maps.Clone(in.Metadata),
				Sent: func(err error) {
					if err == nil {
						in.Done()
					}
				}})
		}
	}()
	_, _ = io.Copy(io.Discard, os.Stdin)
	cancel()
	b.Close()
	require.NoError(t, m.Stop(context.Background()))
}

// helper is a running helper process.
type helper struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines *testkit.Log[string]
	url   string
}

func startHelper(t *testing.T, mode, configPath string) *helper {
	t.Helper()
	cmd := testkit.HelperCommand("TestHelperHost", "HTTP_HELPER="+mode, "HTTP_HELPER_CONFIG="+configPath)
	p := testkit.StartProcess(t, fmt.Sprintf("helper (%s)", mode), cmd)
	h := &helper{cmd: p.Cmd, stdin: p.Stdin, lines: p.Lines}
	line := h.lines.WaitFor(t, "the helper listening", func(l string) bool { return strings.HasPrefix(l, "listening ") })
	h.url = strings.TrimPrefix(line, "listening ")
	return h
}

// A message whose turn was cut by a SIGKILL is answered once after the
// restart; the client posting it again with the same Idempotency-Key
// after the restart gets no second answer; the answers outlive the
// process.
func TestKillMidTurnAnsweredOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`{
  "agents": {"defaults": {"workspace": %q}},
  "channels": {"http": {"enabled": true, "listen": "127.0.0.1:0"}}
}`, dir)), 0o600))

	first := startHelper(t, "hold", path)
	h := &harness{t: t, url: first.url}
	code, body := h.do("POST", "/api/sessions/s1/messages", `{"text": "hello"}`, "Idempotency-Key", "k1")
	require.Equal(t, http.StatusAccepted, code, body)
	first.lines.WaitFor(t, "the turn started", func(l string) bool { return l == "took s1/k1 false" })
	require.NoError(t, first.cmd.Process.Kill()) // SIGKILL mid-turn
	_ = first.cmd.Wait()

	second := startHelper(t, "answer", path)
	h.url = second.url
	second.lines.WaitFor(t, "the message handed over again", func(l string) bool { return l == "took s1/k1 true" })
	a := h.poll("s1", 0)
	require.Len(t, a.Answers, 1)
	assert.Equal(t, "echo: hello", a.Answers[0].Text)
	assert.Equal(t, "s1/k1", a.Answers[0].ReplyTo)

	// The client did not hear the 202 (say) and posts again: taken, not
	// answered again; a later message's answer shows it went nowhere.
	code, body = h.do("POST", "/api/sessions/s1/messages", `{"text": "hello"}`, "Idempotency-Key", "k1")
	require.Equal(t, http.StatusAccepted, code)
	assert.Contains(t, body, `"duplicate":true`)
	code, _ = h.do("POST", "/api/sessions/s1/messages", `{"text": "next"}`, "Idempotency-Key", "k2")
	require.Equal(t, http.StatusAccepted, code)
	a = h.poll("s1", 1)
	require.Len(t, a.Answers, 1)
	assert.Equal(t, "echo: next", a.Answers[0].Text)
	assert.Equal(t, 1, second.lines.Count(func(l string) bool { return strings.HasPrefix(l, "took s1/k1") }))
	require.NoError(t, second.stdin.Close()) // a clean stop
	require.NoError(t, second.cmd.Wait())

	third := startHelper(t, "answer", path)
	h.url = third.url
	a = h.poll("s1", 0)
	require.Len(t, a.Answers, 2, "the answers are kept across restarts")
	assert.Equal(t, []string{"echo: hello", "echo: next"}, []string{a.Answers[0].Text, a.Answers[1].Text})
	for _, f := range []string{"http-journal.jsonl", "http-answers.jsonl"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, "%s is in the workspace by default", f)
	}
}
