package agentloop_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/config"
)

func TestNewValidates(t *testing.T) {
	for _, tt := range []struct {
		name string
		cfg  agentloop.Config
		want []string
	}{
		{"missing deps", agentloop.Config{}, []string{"Bus is required", "Provider is required"}},
		{"negative values", agentloop.Config{Bus: bus.New(1), Provider: echo(), MaxTokens: -1,
			MaxToolIterations: -2, MaxConcurrentSessions: -3, Temperature: -0.5, HistoryWindow: -1, QueueSize: -1},
			[]string{"maxTokens: want 1 or more, got -1", "maxToolIterations", "maxConcurrentSessions",
				"temperature", "historyWindow", "queueSize"}},
		{"bad home", agentloop.Config{Bus: bus.New(1), Provider: echo(), Workspace: "~other/ws"},
			[]string{`only "~/" is supported`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := agentloop.New(tt.cfg)
			require.Error(t, err)
			for _, w := range tt.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestNewDefaultsAndHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	l, err := agentloop.New(agentloop.Config{Bus: bus.New(1), Provider: echo()})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(home, ".nanobot", "workspace"), l.Workspace())

	d := config.Default().Agents.Defaults
	d.Workspace = "~/elsewhere"
	cfg := agentloop.FromDefaults(d)
	assert.Equal(t, agentloop.Config{Workspace: "~/elsewhere", MaxTokens: 4096, Temperature: 0.2,
		MaxToolIterations: 20, MaxConcurrentSessions: 8, JudgeTimeout: config.DefaultJudgeTimeout}, cfg)
	cfg.Bus, cfg.Provider = bus.New(1), echo()
	l, err = agentloop.New(cfg)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(home, "elsewhere"), l.Workspace())
	_, err = os.Stat(l.Workspace())
	assert.True(t, os.IsNotExist(err), "New writes nothing")
}

func TestRunEndsWhenTheBusCloses(t *testing.T) {
	b := bus.New(8)
	l, err := agentloop.New(agentloop.Config{Workspace: t.TempDir(), Bus: b, Provider: echo()})
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, b.PublishInbound(ctx, user("c", "last words")))
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	out, err := b.ConsumeOutbound(ctx)
	require.NoError(t, err)
	assert.Equal(t, "echo: last words", out.Content)
	require.NoError(t, b.Close())
	assert.NoError(t, waitFor(t, done, "Run to return"))
}

func TestRunTwiceIsRefused(t *testing.T) {
	blocked := make(chan struct{})
	p := providerFunc(func(ctx context.Context, _ agent.Request) (*agent.Response, error) {
		close(blocked)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	s := start(t, agentloop.Config{Provider: p})
	s.send(t, user("c", "hang"))
	waitFor(t, blocked, "the turn to start")
	assert.ErrorIs(t, s.loop.Run(context.Background()), agentloop.ErrRunning)
	s.stop() // a turn in progress ends with the context; no reply is sent
	assert.Zero(t, s.bus.OutboundDepth())
}
