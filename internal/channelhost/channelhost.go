package channelhost

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The environment of a helper process: its mode and its config file.
const (
	envMode   = "CHANNEL_HELPER"
	envConfig = "CHANNEL_HELPER_CONFIG"
)

// The modes of a helper process.
const (
	// Host runs a host of the config (host.New, as `switchboard run`
	// builds it), with its agent loop and provider; it prints "running"
	// once started. The test binary blank-imports the modules it needs.
	Host = "host"
	// Hold builds the config's channels through the registry with an
	// agent that prints "took <id> <redelivered>" for every message it
	// takes and never answers: a turn that does not end.
	Hold = "hold"
	// Answer is Hold with an agent that answers "echo: <text>" as the
	// agent loop does (the message is done once the answer is sent).
	Answer = "answer"
)

// Serve is the body of a helper test (TestHelperHost in a channel's
// tests): it loads the config file Start named and runs in Start's mode
// until its standard input closes. A channel that listens prints
// "listening <url>" once started. Run by go test itself, it skips.
func Serve(t *testing.T) {
	mode := os.Getenv(envMode)
	if mode == "" {
		t.Skip("the helper process of the tests of a second process")
	}
	cfg, err := config.Load(config.LoadOptions{Path: os.Getenv(envConfig)})
	require.NoError(t, err)
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if mode == Host {
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
	for _, name := range m.Names() {
		ch, _ := m.Channel(name)
		if a, ok := ch.(channels.Addresser); ok {
			if _, url := a.Address(); url != "" {
				fmt.Println("listening", url)
			}
		}
	}
	go Agent(ctx, b, nil, func(in bus.InboundMessage) string {
		fmt.Printf("took %s %v\n", in.ID, in.Redelivered)
		if mode == Hold {
			return Never
		}
		return Echo(in)
	})
	_, _ = io.Copy(io.Discard, os.Stdin)
	cancel()
	b.Close()
	require.NoError(t, m.Stop(context.Background()))
}

// Helper is a running helper process.
type Helper struct {
	*testkit.Process
	// URL is where its channel listens, from its "listening" line; ""
	// unless Start was asked to wait for it.
	URL string
}

// Start runs test (the helper test that calls Serve) in mode with the
// config file at path, and env ("KEY=value"); NANOBOT_ variables of this
// process are left out (the config file says it all). With listens set
// it waits for the "listening" line. The test's end kills it.
func Start(t *testing.T, test, mode, path string, listens bool, env ...string) *Helper {
	t.Helper()
	cmd := testkit.HelperCommand(test, append([]string{envMode + "=" + mode, envConfig + "=" + path}, env...)...)
	kept := cmd.Env[:0]
	for _, kv := range cmd.Env {
		if !strings.HasPrefix(kv, "NANOBOT_") {
			kept = append(kept, kv)
		}
	}
	cmd.Env = kept
	h := &Helper{Process: testkit.StartProcess(t, fmt.Sprintf("helper %s (%s)", filepath.Base(path), mode), cmd)}
	if listens {
		line := h.Lines.WaitFor(t, "the helper listening", func(l string) bool { return strings.HasPrefix(l, "listening ") })
		h.URL = strings.TrimPrefix(line, "listening ")
	}
	return h
}

// Stop closes the helper's standard input, which stops it cleanly, and
// requires it to exit 0.
func (h *Helper) Stop(t *testing.T) {
	t.Helper()
	require.NoError(t, h.Stdin.Close())
	require.NoError(t, h.Cmd.Wait())
}
