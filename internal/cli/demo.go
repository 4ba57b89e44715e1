package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/internal/cli/demo"
)

// The demo's mailbox backends (--backend).
const (
	demoFS   = "fs"
	demoNATS = "nats"
)

// demoFlags are the demo command's flags.
type demoFlags struct {
	dir     string
	timeout time.Duration
	keep    bool
	backend string
	natsURL string
	observe bool
}

func (a *app) demoCommand() *cobra.Command {
	var f demoFlags
	cmd := &cobra.Command{
		Use:   "demo [--backend fs|nats] [--nats-url URL] [--dir DIR] [--timeout D] [--keep] [--observe]",
		Short: "Run the two-agent demo: Feishu user → researcher → coder and back",
		Long: `Demo runs the main job end to end with no API key and no external service.

It writes two configs into a fresh folder (a temporary one unless --dir names
an empty or new folder), then starts two agents as separate processes
(` + "`switchboard run --config FILE`" + `): researcher, with the Feishu stub on a free
127.0.0.1 port and the mailbox, and coder, with the mailbox only (capabilities
sorting, counting, arithmetic). Both use the deterministic scripted provider.

The mailbox is a folder in the demo's folder (--backend fs, the default), or
NATS JetStream (--backend nats): the demo then starts a nats-server with
JetStream (switchboard-natsd), on a free 127.0.0.1 port and storing in
the demo's folder, and both agents connect to it (channels.mailbox.backend
"nats"); --nats-url uses a running server instead (its default stream
MAILBOX and buckets mailbox-*, where no other researcher or coder runs).

Once both are registered online, it posts a Feishu im.message.receive_v1
event "ask coder to sort 5 3 9 1" to researcher's webhook over HTTP, waits for the
answer to appear in that Feishu chat, prints the conversation (the user's
message, the messages between the agents, the replies in the chat), stops
both agents (SIGTERM: each answers what it received and marks itself
offline) and exits 0. On NATS the messages between the agents are read
from the history stream (those stamped since the demo began). It exits 1 with a one-line
reason when anything fails or takes longer than --timeout.

With --keep the agents keep running after the conversation, and the demo
prints commands to talk to them, until Ctrl-C stops them.

With --observe the demo shows what the agents do without any external
service: it runs an OTLP/HTTP trace receiver on a free 127.0.0.1 port in
its own process, turns tracing on in both configs (observability.tracing,
pointing at it; the OTEL_ variables of its environment are not passed to
the agents) and metrics on a free 127.0.0.1 port of each agent
(observability.metrics.listen), and prints where to look (the receiver,
each agent's /metrics, /healthz and /readyz, the logs, the mailbox).
Before it stops the agents it prints what their /metrics counted: the
mailbox messages each sent, received and acknowledged, its turns and its
tokens by model. Once the answer came it prints the conversation's trace id and
the ` + "`switchboard thread`" + ` command that shows it; once the agents stopped
(each flushes its spans) it prints every trace received as a tree: each
span's start, duration, name and agent, one trace across both processes.
The folder is kept, to look at afterwards.`,
		Example: `  switchboard demo
  go run ./cmd/switchboard demo --keep
  switchboard demo --observe
  switchboard demo --backend nats
  switchboard demo --backend nats --nats-url nats://127.0.0.1:4222
  switchboard demo --dir /tmp/sb-demo --timeout 1m`,
		Args: exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			if a.root != "" || a.conf != "" {
				return usagef("demo writes its own configs and mailbox folder: leave out --root and --config (use --dir)")
			}
			if f.timeout <= 0 {
				return usagef("--timeout must be positive, got %s", f.timeout)
			}
			if f.backend != demoFS && f.backend != demoNATS {
				return usagef("--backend: want %s or %s, got %q", demoFS, demoNATS, f.backend)
			}
			if f.natsURL != "" && f.backend != demoNATS {
				return usagef("--nats-url goes with --backend %s", demoNATS)
			}
			return a.demo(cmd.Context(), f)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "dir", "", "folder for the configs, logs, mailboxes (or NATS store) and Feishu outbox (new or empty; default: a temporary folder, removed after a successful run)")
	fl.DurationVar(&f.timeout, "timeout", 30*time.Second, "give up when the answer has not arrived by then")
	fl.BoolVar(&f.keep, "keep", false, "keep both agents running after the conversation, until Ctrl-C")
	fl.StringVar(&f.backend, "backend", demoFS, "the mailbox's store: fs (a folder) or nats (NATS JetStream)")
	fl.StringVar(&f.natsURL, "nats-url", "", "with --backend nats: use this server instead of starting one")
	fl.BoolVar(&f.observe, "observe", false, "trace both agents to a receiver in the demo's process and serve their metrics; print where to look, what the metrics counted and the trace trees (keeps the folder)")
	_ = cmd.RegisterFlagCompletionFunc("backend", cobra.FixedCompletions([]string{demoFS, demoNATS}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// demo runs the demo (package demo): its agents are `run` processes of
// this program.
func (a *app) demo(ctx context.Context, f demoFlags) error {
	err := demo.Run(ctx, demo.Options{Dir: f.dir, Timeout: f.timeout, Keep: f.keep, Backend: f.backend,
		NATSURL: f.natsURL, Observe: f.observe, Stdout: a.env.Stdout, Environ: a.env.Environ})
	if demo.IsUsage(err) {
		return asUsage(err)
	}
	return err
}
