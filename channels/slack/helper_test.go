package slack_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	_ "github.com/switchboard-dev/switchboard/agentloop/provider/scripted" // the agents' provider
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox"               // the agents' mailbox
	_ "github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore" // and its backend
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// TestHelperProcess is the helper process of the tests that need a second
// process: it loads the config file SLACK_HELPER_CONFIG names and runs,
// until its standard input closes, as SLACK_HELPER says:
//
//   - "host": a host of that config (host.New, as `switchboard run`
//     builds it), with the agent loop and its provider; it prints
//     "running" once started;
//   - "hold" and "answer": the config's channels built through the
//     registry, and a scripted agent that prints "took <id> <redelivered>"
//     for every message it takes; with "hold" it never answers (a turn
//     that does not end), with "answer" it answers as the agent loop does.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv("SLACK_HELPER")
	if mode == "" {
		t.Skip("the helper process of the tests of a second process")
	}
	cfg, err := config.Load(config.LoadOptions{Path: os.Getenv("SLACK_HELPER_CONFIG")})
	require.NoError(t, err)
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if mode == "host" {
		h, err := host.New(cfg, host.Options{Logger: logger})
		require.NoError(t, err)
		require.NoError(t, h.Start(context.Background()))
		fmt.Println("running")
		_, _ = io.Copy(io.Discard, os.Stdin)
		require.NoError(t, h.Stop())
		return
	}
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

// startHelper runs TestHelperProcess in mode with the config file at
// path; the test's end kills it.
func startHelper(t *testing.T, mode, path string) *helper {
	t.Helper()
	cmd := testkit.HelperCommand("TestHelperProcess", "SLACK_HELPER="+mode, "SLACK_HELPER_CONFIG="+path)
	env := cmd.Env[:0]
	for _, kv := range cmd.Env { // the config file says it all
		if !strings.HasPrefix(kv, "NANOBOT_") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	p := testkit.StartProcess(t, fmt.Sprintf("helper %s (%s)", filepath.Base(path), mode), cmd)
	return &helper{cmd: p.Cmd, stdin: p.Stdin, lines: p.Lines}
}

// stop closes the helper's standard input, which stops it cleanly, and
// requires it to exit 0.
func (h *helper) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, h.stdin.Close())
	require.NoError(t, h.cmd.Wait())
}

// writeConfig writes doc as a config file in dir and returns its path.
func writeConfig(t *testing.T, dir, name string, doc map[string]any) string {
	t.Helper()
	data, err := json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}
