package cli

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/config"
)

// a2aCommand is `switchboard a2a`, the Agent2Agent protocol both ways.
func (a *app) a2aCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "a2a serve [flags]",
		Short: "Serve mailbox agents as A2A agents, and connect A2A agents to the mailbox",
		Long: `A2a speaks the Agent2Agent protocol (A2A 1.0, and 0.3) both ways; see
docs/a2a.md.`,
		Args: exactArgs(),
		RunE: a.action(func(*cobra.Command, []string) error { return usagef("missing subcommand: serve") }),
	}
	cmd.AddCommand(a.a2aServeCommand())
	return cmd
}

// a2aServeCommand is `switchboard a2a serve`.
func (a *app) a2aServeCommand() *cobra.Command {
	var (
		listen, publicURL, def string
		serve, connect         []string
	)
	cmd := &cobra.Command{
		Use:   "serve [--listen ADDR] [--agent ID]... [--connect NAME=URL]... [--public-url URL] [--default ID]",
		Short: "Run the A2A gateway until SIGINT/SIGTERM",
		Long: `Serve runs the A2A gateway of the config's channels.a2a section (enabled or
not), with the flags on top, until SIGINT or SIGTERM.

Each agent served (--agent, channels.a2a.serve; "*" for every registered
agent) is an A2A agent at http://ADDR/agents/ID: its Agent Card at
/agents/ID/.well-known/agent-card.json, made from its registry card (its
capabilities are the skills), JSON-RPC at /agents/ID/jsonrpc and HTTP+JSON
at /agents/ID/rest (A2A 1.0), and the same under /agents/ID/v0.3/ (A2A 0.3).
The first agent's card is also at /.well-known/agent-card.json. A message
from an A2A client becomes a mailbox task from the gateway's own identity
(channels.a2a.agentId, default "a2a"), which the agent must allow; its
updates become the A2A task's states and its result an artifact. Off a
loopback address, channels.a2a.token (NANOBOT_CHANNELS__A2A__TOKEN) is
required: clients send it as a bearer token, and the cards say so.

Each agent connected (--connect NAME=URL, channels.a2a.connect) becomes the
mailbox agent NAME, with the A2A card's description and skills: tasks
delegated to it go to the A2A agent, and its states come back as
task_updates.

Tasks survive a restart on both sides: the gateway's A2A tasks are records
of its mailbox identity, and what is under way resumes when it starts
again. The mailbox settings are channels.mailbox's (the store: --root, the
folder, or NATS).`,
		Example: `  switchboard a2a serve --agent coder --agent reviewer
  NANOBOT_CHANNELS__A2A__TOKEN=s3cret switchboard a2a serve --listen 0.0.0.0:8790 --agent coder --public-url https://a2a.example.com
  switchboard a2a serve --connect echo=http://127.0.0.1:9001`,
		Args: exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			flags := map[string]any{}
			if listen != "" {
				flags["listen"] = listen
			}
			if publicURL != "" {
				flags["publicUrl"] = publicURL
			}
			if def != "" {
				flags["default"] = def
			}
			if len(serve) > 0 {
				flags["serve"] = serve
			}
			remotes := map[string]any{}
			for _, c := range connect {
				name, url, ok := strings.Cut(c, "=")
				if !ok || name == "" || url == "" {
					return usagef("--connect %q: want NAME=URL", c)
				}
				remotes[name] = url
			}
			return a.serveA2A(cmd.Context(), flags, remotes)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&listen, "listen", "", "serve on host:port (channels.a2a.listen; default 127.0.0.1:8790 when agents are served)")
	fl.StringSliceVar(&serve, "agent", nil, "a mailbox agent to serve (channels.a2a.serve; repeat, or comma-separated; * for all)")
	fl.StringArrayVar(&connect, "connect", nil, "an A2A agent to connect, as NAME=URL (channels.a2a.connect.NAME.url; repeat)")
	fl.StringVar(&publicURL, "public-url", "", "the base URL the cards name (channels.a2a.publicUrl; default http://ADDR)")
	fl.StringVar(&def, "default", "", "the agent whose card is also at the root (channels.a2a.default)")
	a.addLogFlags(cmd, "info")
	return cmd
}

// defaultA2AListen is where the gateway serves when agents are served and
// nothing says where.
const defaultA2AListen = "127.0.0.1:8790"

// a2aType is the channel type of the A2A gateway (package a2a): the
// program links it (cmd/switchboard/main.go), the command line does not.
const a2aType = "a2a"

// a2aGateway is what `switchboard a2a serve` needs of the gateway besides
// its life as a channel.
type a2aGateway interface {
	// Summary says where it serves each agent and which A2A agents it
	// connects, a line each.
	Summary() []string
}

// a2aStopTimeout bounds the stop of the gateway at the end.
const a2aStopTimeout = 10 * time.Second

// serveA2A runs the gateway of channels.a2a with flags on top, and
// remotes (name → url) added to channels.a2a.connect.
func (a *app) serveA2A(ctx context.Context, flags map[string]any, remotes map[string]any) error {
	factory, err := channels.Lookup(a2aType)
	if err != nil {
		return fmt.Errorf("a2a serve: this program was built without the A2A gateway (it imports no github.com/switchboard-dev/switchboard/a2a)")
	}
	s, err := a.settings()
	if err != nil {
		return err
	}
	sec := a2aSection(s.config, flags, remotes)
	if _, err := channels.DefaultRegistry().Check(a2aType, sec); err != nil {
		return usagef("a2a serve: %v", err)
	}
	logger := a.logger(slog.LevelInfo)
	id := "a2a" // the gateway's default identity (channels.a2a.agentId)
	if v, ok := sec.Raw["agentId"].(string); ok && v != "" {
		id = v
	}
	stopTracing, err := a.startTracing(ctx, s.config.Observability.Tracing, id, logger)
	if err != nil {
		return err
	}
	defer stopTracing()
	ch, err := factory(sec, channels.Deps{Logger: logger, Config: a.a2aConfig(s)})
	if err != nil {
		return fmt.Errorf("a2a serve: %w", err)
	}
	if err := ch.Start(ctx); err != nil {
		if stopped(ctx, err) {
			return nil
		}
		return fmt.Errorf("a2a serve: %w", err)
	}
	if g, ok := ch.(a2aGateway); ok {
		for _, line := range g.Summary() {
			fmt.Fprintln(a.env.Stderr, line)
		}
	}
	fmt.Fprintln(a.env.Stderr, "(Ctrl-C to stop)")
	<-ctx.Done()
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), a2aStopTimeout)
	defer cancel()
	if err := ch.Stop(stop); err != nil {
		return fmt.Errorf("a2a serve: %w", err)
	}
	return nil
}

// a2aSection is the config's channels.a2a section (or an empty one) with
// flags on top, remotes added to its connect, enabled, and listening on
// the default address when it serves agents and nothing says where.
func a2aSection(cfg *config.Config, flags, remotes map[string]any) config.Section {
	sec, ok := cfg.Section(a2aType)
	if !ok {
		sec = config.Section{Path: "channels." + a2aType}
	}
	raw := maps.Clone(sec.Raw)
	if raw == nil {
		raw = map[string]any{}
	}
	maps.Copy(raw, flags)
	if len(remotes) > 0 {
		connect := map[string]any{}
		if old, ok := raw["connect"].(map[string]any); ok {
			connect = maps.Clone(old)
		}
		for name, url := range remotes {
			entry := map[string]any{}
			if old, ok := connect[name].(map[string]any); ok {
				entry = maps.Clone(old)
			}
			entry["url"] = url
			connect[name] = entry
		}
		raw["connect"] = connect
	}
	if _, set := raw["listen"]; !set && raw["serve"] != nil {
		raw["listen"] = defaultA2AListen
	}
	raw["enabled"] = true
	sec.Raw = raw
	return sec
}

// a2aConfig is the config the gateway is built from: the loaded one, its
// channels.mailbox section naming the store this command uses (--root,
// the backend).
func (a *app) a2aConfig(s *settings) *config.Config {
	cfg := *s.config
	cfg.Channels = maps.Clone(cfg.Channels)
	if cfg.Channels == nil {
		cfg.Channels = map[string]config.Section{}
	}
	sec, ok := cfg.Section(mailbox.ChannelName)
	if !ok {
		sec = config.Section{Path: "channels." + mailbox.ChannelName}
	}
	raw := maps.Clone(sec.Raw)
	if raw == nil {
		raw = map[string]any{}
	}
	raw["mailboxesRoot"] = s.mailbox.MailboxesRoot
	raw["backend"] = a.backendKind(s)
	sec.Raw = raw
	cfg.Channels[mailbox.ChannelName] = sec
	return &cfg
}
