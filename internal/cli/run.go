package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	_ "github.com/switchboard-dev/switchboard/channels/mailbox" // registers the mailbox channel type
)

// runCommand is the host. Until the agent loop exists it runs the enabled
// channels and logs what arrives; this file is meant to be replaced then.
func (a *app) runCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "run [--config FILE]",
		Short: "Run a host: the enabled channels, until SIGINT/SIGTERM",
		Long: `Run starts every channel the config enables, logs to stderr, and runs until
SIGINT or SIGTERM; then it stops the channels (within 10 seconds) and exits 0.
--root, when given, replaces channels.mailbox.mailboxesRoot.

There is no agent loop yet: inbound messages are logged, not answered.`,
		Example: `  switchboard run --config ~/.nanobot/coder.json`,
		Args:    exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			return a.runHost(cmd.Context())
		}),
	}
}

func (a *app) runHost(ctx context.Context) error {
	s, err := a.settings()
	if err != nil {
		return err
	}
	cfg := s.config
	if sec, ok := cfg.Section("mailbox"); ok && a.root != "" && sec.Raw != nil {
		sec.Raw["mailboxesRoot"] = a.root
	}
	logger := a.logger(slog.LevelInfo)
	b := bus.New(0)
	defer b.Close()
	m := channels.NewManager(b, channels.ManagerConfig{Logger: logger})
	if err := m.Build(channels.DefaultRegistry(), cfg); err != nil {
		return err
	}
	if len(m.Names()) == 0 {
		from := cfg.Path
		if from == "" {
			from = "the config (no file found)"
		}
		return fmt.Errorf("no channel is enabled in %s: set channels.mailbox.enabled to true", from)
	}
	if err := m.Start(ctx); err != nil {
		return err
	}
	logger.Info("host running", "channels", m.Names())
	for {
		in, err := b.ConsumeInbound(ctx)
		if err != nil {
			break
		}
		logger.Info("inbound message (no agent loop yet: not answered)", "channel", in.Channel,
			"sender", in.SenderID, "chat", in.ChatID, "content", clip(in.Content, 200))
	}
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
	defer cancel()
	err = m.Stop(stop)
	logger.Info("host stopped")
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("channels did not stop within %s: %w", stopTimeout, err)
	}
	return err
}
