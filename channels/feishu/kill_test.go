package feishu_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
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
	"github.com/switchboard-dev/switchboard/internal/feishufake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestHelperHost is the helper process of TestKillMidTurnAnsweredOnce: a
// host of the Feishu channel, built from a config file through the
// registry as `switchboard run` builds it, and a scripted agent that
// prints "took <id> <redelivered>" for every message it takes. With
// FEISHU_HELPER=hold it never answers (a turn that does not end); with
// "answer" it answers as the agent loop does. It stops when its standard
// input closes.
func TestHelperHost(t *testing.T) {
	mode := os.Getenv("FEISHU_HELPER")
	if mode == "" {
		t.Skip("the helper process of TestKillMidTurnAnsweredOnce")
	}
	cfg, err := config.Load(config.LoadOptions{Path: os.Getenv("FEISHU_HELPER_CONFIG")})
	require.NoError(t, err)
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	b := bus.New(16)
	m := channels.NewManager(b, channels.ManagerConfig{Logger: logger})
	require.NoError(t, m.Build(channels.DefaultRegistry(), cfg))
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, m.Start(ctx))
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
}

func startHelper(t *testing.T, mode, configPath string) *helper {
	t.Helper()
	cmd := testkit.HelperCommand("TestHelperHost", "FEISHU_HELPER="+mode, "FEISHU_HELPER_CONFIG="+configPath)
	p := testkit.StartProcess(t, fmt.Sprintf("helper (%s)", mode), cmd)
	return &helper{cmd: p.Cmd, stdin: p.Stdin, lines: p.Lines}
}

// A message whose turn was cut by a SIGKILL is answered once after the
// restart; Feishu's retry of its event after the restart is not answered
// again.
func TestKillMidTurnAnsweredOnce(t *testing.T) {
	t.Parallel()
	fake := feishufake.New(feishufake.Options{AppID: "cli_kill"})
	t.Cleanup(fake.Close)
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`{
  "agents": {"defaults": {"workspace": %q}},
  "channels": {"feishu": {"enabled": true, "appId": %q, "appSecret": %q, "allowFrom": ["*"], "baseUrl": %q}}
}`, dir, fake.AppID(), fake.AppSecret(), fake.URL())), 0o600))
	ctx := testkit.Ctx(t)
	ev := feishufake.Event{MessageID: "om_1", ChatID: "oc_dm", Content: feishufake.Text("hello")}

	first := startHelper(t, "hold", path)
	ack, err := fake.PushEvent(ctx, ev)
	require.NoError(t, err)
	require.Equal(t, 200, ack.Code, "Feishu hears the event was taken")
	first.lines.WaitFor(t, "the turn started", func(l string) bool { return l == "took om_1 false" })
	require.NoError(t, first.cmd.Process.Kill()) // SIGKILL mid-turn
	_ = first.cmd.Wait()
	assert.Empty(t, fake.Messages(), "nothing was answered before the kill")

	second := startHelper(t, "answer", path)
	second.lines.WaitFor(t, "the message handed over again", func(l string) bool { return l == "took om_1 true" })
	replies, err := fake.WaitMessages(ctx, 1, func(m feishufake.Message) bool { return m.ReplyTo == "om_1" })
	require.NoError(t, err)
	assert.Equal(t, "echo: hello", replies[0].Text())
	assert.Equal(t, "oc_dm", replies[0].ChatID)

	// Feishu delivers the event again (it retries what it thinks was
	// lost); a later message's answer shows the repeat went nowhere.
	require.NoError(t, fake.WaitConnections(ctx, 2))
	ack, err = fake.PushEvent(ctx, ev)
	require.NoError(t, err)
	assert.Equal(t, 200, ack.Code)
	ack, err = fake.PushEvent(ctx, feishufake.Event{MessageID: "om_2", ChatID: "oc_dm", Content: feishufake.Text("next")})
	require.NoError(t, err)
	assert.Equal(t, 200, ack.Code)
	_, err = fake.WaitMessages(ctx, 1, func(m feishufake.Message) bool { return m.ReplyTo == "om_2" })
	require.NoError(t, err)
	assert.Len(t, fake.Messages(), 2, "om_1 and om_2 answered once each: %+v", fake.Messages())
	assert.Equal(t, 1, second.lines.Count(func(l string) bool { return strings.HasPrefix(l, "took om_1") }))

	require.NoError(t, second.stdin.Close()) // a clean stop
	require.NoError(t, second.cmd.Wait())
	_, err = os.Stat(filepath.Join(dir, "feishu-journal.jsonl"))
	assert.NoError(t, err, "the journal is in the workspace by default")
}
