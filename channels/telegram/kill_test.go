package telegram_test

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
	"github.com/switchboard-dev/switchboard/internal/telegramfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestHelperHost is the helper process of TestKillMidTurnAnsweredOnce: a
// host of the Telegram channel, built from a config file through the
// registry as `switchboard run` builds it, and a scripted agent that
// prints "took <id> <redelivered>" for every message it takes. With
// TELEGRAM_HELPER=hold it never answers (a turn that does not end); with
// "answer" it answers as the agent loop does. It stops when its standard
// input closes.
func TestHelperHost(t *testing.T) {
	mode := os.Getenv("TELEGRAM_HELPER")
	if mode == "" {
		t.Skip("the helper process of TestKillMidTurnAnsweredOnce")
	}
	cfg, err := config.Load(config.LoadOptions{Path: os.Getenv("TELEGRAM_HELPER_CONFIG")})
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

// startHelper runs the test binary again as the named helper test with
// env, and reads its standard output into lines.
func startHelper(t *testing.T, test string, env ...string) *helper {
	t.Helper()
	cmd := testkit.HelperCommand(test, env...)
	p := testkit.StartProcess(t, fmt.Sprintf("helper %s %v", test, env), cmd)
	return &helper{cmd: p.Cmd, stdin: p.Stdin, lines: p.Lines}
}

// A message whose turn was cut by a SIGKILL is answered once after the
// restart; Telegram's giving its update again (the kill came before the
// next getUpdates confirmed it) is not answered again.
func TestKillMidTurnAnsweredOnce(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`{
  "agents": {"defaults": {"workspace": %q}},
  "channels": {"telegram": {"enabled": true, "token": %q, "allowFrom": ["ada"], "baseUrl": %q, "pollTimeout": 5}}
}`, dir, fake.Token(), fake.URL())), 0o600))
	ctx := testkit.Ctx(t)

	first := startHelper(t, "TestHelperHost", "TELEGRAM_HELPER=hold", "TELEGRAM_HELPER_CONFIG="+path)
	update, msgID := fake.Push(telegramfake.Incoming{From: ada, Text: "hello"})
	id := fmt.Sprintf("501:%d", msgID)
	first.lines.WaitFor(t, "the turn started", func(l string) bool { return l == "took "+id+" false" })
	require.NoError(t, first.cmd.Process.Kill()) // SIGKILL mid-turn
	_ = first.cmd.Wait()
	assert.Empty(t, fake.Messages(), "nothing was answered before the kill")
	fake.Redeliver(update) // whether or not the next getUpdates had confirmed it

	second := startHelper(t, "TestHelperHost", "TELEGRAM_HELPER=answer", "TELEGRAM_HELPER_CONFIG="+path)
	second.lines.WaitFor(t, "the message handed over again", func(l string) bool { return l == "took "+id+" true" })
	replies, err := fake.WaitMessages(ctx, 1, nil)
	require.NoError(t, err)
	assert.Equal(t, "echo: hello", replies[0].Text)
	assert.Equal(t, int64(501), replies[0].ChatID)

	// A later message's answer shows that Telegram's repeat went nowhere.
	fake.Push(telegramfake.Incoming{From: ada, Text: "next"})
	_, err = fake.WaitMessages(ctx, 2, nil)
	require.NoError(t, err)
	assert.Len(t, fake.Messages(), 2, "hello and next answered once each: %+v", fake.Messages())
	assert.Equal(t, 1, second.lines.Count(func(l string) bool { return strings.HasPrefix(l, "took "+id) }))
	require.NoError(t, fake.WaitConfirmed(ctx, update+2), "both updates confirmed")

	require.NoError(t, second.stdin.Close()) // a clean stop
	require.NoError(t, second.cmd.Wait())
	_, err = os.Stat(filepath.Join(dir, "telegram-journal.jsonl"))
	assert.NoError(t, err, "the journal is in the workspace by default")
}
