package host_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// slowStart is a channel whose Start waits until its context ends, as one
// that connects to a slow server does; entered is closed when it begins.
type slowStart struct{ entered chan struct{} }

func (s *slowStart) Name() string { return "zslow" }
func (s *slowStart) Start(ctx context.Context) error {
	close(s.entered)
	<-ctx.Done()
	return ctx.Err()
}
func (s *slowStart) Stop(context.Context) error                      { return nil }
func (s *slowStart) Send(context.Context, bus.OutboundMessage) error { return nil }

// A host asked to stop while it starts (the run command's context ends
// on SIGTERM) stops what started and Run returns nil: a stop asked for,
// not a failure. The mailbox, started before the slow channel, marks its
// agent offline.
func TestRunStoppedWhileStarting(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	slow := &slowStart{entered: make(chan struct{})}
	reg := observedRegistry(nil)
	reg.Register("zslow", func(config.Section, channels.Deps) (channels.Channel, error) { return slow, nil })
	path := filepath.Join(w.dir, "host.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"channels": {"mailbox": {"enabled": true, "agentId": "coder", "mailboxesRoot": "`+
		w.root+`"}, "zslow": {"enabled": true}}, "agents": {"defaults": {"workspace": "`+filepath.Join(w.dir, "ws")+`"}}}`), 0o600))
	cfg, err := config.Load(config.LoadOptions{Path: path})
	require.NoError(t, err)
	logs := logSignals{testkit.NewLog[string]()}
	h, err := host.New(cfg, host.Options{Registry: reg, Logger: slog.New(logs)})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- h.Run(ctx) }()
	waitClosed(t, slow.entered, "the slow channel's start")
	cancel()
	select {
	case err := <-ran:
		require.NoError(t, err, "a stop asked for while starting is no failure")
	case <-testkit.Ctx(t).Done():
		t.Fatal("Run did not return")
	}
	logs.WaitFor(t, "the stop said", func(msg string) bool { return msg == "host stopped while it started: asked to stop" })
	st, err := fsstore.Open(fsstore.Options{Root: w.root})
	require.NoError(t, err)
	defer st.Close()
	card, err := st.Card(context.Background(), "coder")
	require.NoError(t, err)
	assert.Equal(t, envelope.StatusOffline, card.Status, "the mailbox, started first, marked its agent offline")

	h2, err := host.New(cfg, host.Options{Registry: reg})
	require.NoError(t, err)
	require.NoError(t, h2.Run(ctx), "a context ended before the start: nothing starts")
}
