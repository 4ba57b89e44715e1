package cli

import (
	"context"
	"log/slog"

	"github.com/spf13/cobra"

	_ "github.com/switchboard-dev/switchboard/examples/feishu-stub" // registers the channel type "feishu"
	"github.com/switchboard-dev/switchboard/host"
)

// runCommand is the host: channels, agent loop and provider from config.
func (a *app) runCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "run [--config FILE]",
		Short: "Run a host: the enabled channels and the agent loop, until SIGINT/SIGTERM",
		Long: `Run starts an agent from its config file alone: every channel the config
enables (channels.mailbox, channels.feishu: the Feishu stub), and the agent
loop, which answers what the channels receive with the provider that
agents.defaults.provider names: "scripted" (the default, deterministic, no
key needed) or "openai" (providers.openai: apiKey, apiBase, model; any
OpenAI-compatible server). With the mailbox enabled, the loop gets the
mailbox tools (list_agents, delegate_task, send_message, reply) and decides
which delegated tasks to accept (the scripted provider accepts the work its
channels.mailbox.capabilities cover).

The mailbox's store is channels.mailbox.backend: "fs" (the folder
mailboxesRoot, the default) or "nats" (NATS JetStream, channels.mailbox.nats:
url, credentials, ...).

It logs to stderr, one line per event, and runs until SIGINT or SIGTERM.
Then it stops taking in messages (new mailbox mail stays in the inbox, the
Feishu webhook answers 503), lets the loop answer what it had received and
sends the answers (within 10 seconds), stops the channels (within 10
seconds; the mailbox marks the agent offline) and exits 0. --root, when
given, replaces channels.mailbox.mailboxesRoot.`,
		Example: `  switchboard run --config ~/.nanobot/coder.json
  NANOBOT_CHANNELS__MAILBOX__AGENT_ID=coder2 switchboard run --config coder.json`,
		Args: exactArgs(),
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
	h, err := host.New(cfg, host.Options{Logger: logger, Environ: a.env.Environ})
	if err != nil {
		return err
	}
	return h.Run(ctx)
}
