package cli

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/host"
	"github.com/switchboard-dev/switchboard/observe/metrics"
)

// runCommand is the host: channels, agent loop and provider from config.
func (a *app) runCommand() *cobra.Command {
	var (
		stopTimeout   float64
		metricsListen string
	)
	cmd := &cobra.Command{
		Use:   "run [--config FILE] [--stop-timeout SECONDS]",
		Short: "Run a host: the enabled channels and the agent loop, until SIGINT/SIGTERM",
		Long: `Run starts an agent from its config file alone: every channel the config
enables (channels.mailbox, channels.feishu: the Feishu stub), and the agent
loop, which answers what the channels receive with the provider that
agents.defaults.provider names: one of nanobot's ("anthropic", "openai",
"deepseek", "openrouter", ..., with providers.<name>: apiKey, apiBase,
model), any providers entry with an apiBase (an OpenAI-compatible
server), "scripted" (deterministic, no key needed) or "auto", the default:
chosen as nanobot does from the model's prefix or keyword, else the first
provider configured; with no model and no key, "scripted". The chosen
provider is logged at start. With the mailbox enabled, the loop gets the
mailbox tools (list_agents, delegate_task, send_message, reply) and decides
which delegated tasks to accept (the scripted provider accepts the work its
channels.mailbox.capabilities cover).

The mailbox's store is channels.mailbox.backend: "fs" (the folder
mailboxesRoot, the default) or "nats" (NATS JetStream, channels.mailbox.nats:
url, credentials, ...).

It logs to stderr, one line per event, and runs until SIGINT or SIGTERM.
Then it stops taking in messages (new mailbox mail stays in the inbox, the
Feishu webhook answers 503), lets the loop answer what it had received and
sends the answers (within --stop-timeout, 10 seconds by default), stops the
channels (within as long again; the mailbox marks the agent offline) and
exits 0. A message is acknowledged only once its answer is sent: one whose
turn did not finish in time, or that was in hand when the process was
killed, stays claimed and is answered after the next start; run then exits
1 and says how many. --root, when given, replaces
channels.mailbox.mailboxesRoot.`,
		Example: `  switchboard run --config ~/.nanobot/coder.json
  NANOBOT_CHANNELS__MAILBOX__AGENT_ID=coder2 switchboard run --config coder.json`,
		Args: exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			if !(stopTimeout > 0 && stopTimeout <= 3600) { // NaN fails both
				return usagef("--stop-timeout %v: want a number of seconds above 0, at most 3600", stopTimeout)
			}
			if msg := config.CheckListen(metricsListen); msg != "" {
				return usagef("--metrics-listen: %s", msg)
			}
			return a.runHost(cmd.Context(), time.Duration(stopTimeout*float64(time.Second)), metricsListen)
		}),
	}
	cmd.Flags().Float64Var(&stopTimeout, "stop-timeout", 10, "seconds to finish the turns in hand on SIGINT/SIGTERM, and again to stop the channels")
	cmd.Flags().StringVar(&metricsListen, "metrics-listen", "", "serve Prometheus /metrics, /healthz and /readyz on ADDR (host:port; port 0 picks a free one; default: the config's observability.metrics.listen, else none)")
	a.addLogFlags(cmd, "info")
	return cmd
}

// runHost assembles the host of the config, starts tracing for its
// agent, serves its metrics when metricsListen (or the config's
// observability.metrics.listen) names an address, and runs it until ctx
// ends.
func (a *app) runHost(ctx context.Context, stopTimeout time.Duration, metricsListen string) error {
	s, err := a.settings()
	if err != nil {
		return err
	}
	cfg := s.config
	if sec, ok := cfg.Section("mailbox"); ok && a.root != "" && sec.Raw != nil {
		sec.Raw["mailboxesRoot"] = a.root
	}
	if metricsListen == "" {
		metricsListen = cfg.Observability.Metrics.Listen
	}
	logger := a.logger(slog.LevelInfo)
	opts := host.Options{Logger: logger, Environ: a.env.Environ, StopTimeout: stopTimeout}
	var mx *metrics.Metrics
	if metricsListen != "" { // no metrics, no Prometheus registry: nothing of it runs
		maxTurn := cmp.Or(cfg.Observability.Metrics.MaxTurnSeconds, config.DefaultMaxTurnSeconds)
		mx = metrics.New(metrics.Options{MaxTurn: time.Duration(maxTurn * float64(time.Second))})
		opts.Hooks = append(opts.Hooks, mx.Hook())
	}
	h, err := host.New(cfg, opts)
	if err != nil {
		return err
	}
	stopTracing, err := a.startTracing(ctx, cfg.Observability.Tracing, h.AgentID(), logger)
	if err != nil {
		_ = h.Stop()
		return err
	}
	defer stopTracing()
	if mx != nil {
		live, ready := mx.Watch(h)
		srv, err := metrics.Listen(metricsListen, mx, live, ready, logger)
		if err != nil {
			_ = h.Stop()
			return err
		}
		logger.Info("metrics listening", "metrics", "http://"+srv.Addr()+"/metrics")
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
			defer cancel()
			_ = srv.Close(ctx)
		}()
	}
	return h.Run(ctx)
}
