package cli

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mcpserver"
)

func (a *app) mcpCommand() *cobra.Command {
	var (
		agent, description, listen string
		capabilities               []string
	)
	cmd := &cobra.Command{
		Use:   "mcp [--agent ID] [--description S] [--capability NAME]... [--listen ADDR]",
		Short: "Serve the mailbox to an MCP client (Claude Code, Codex, ...), which becomes an agent",
		Long: `Mcp serves the mailbox as an MCP server, over stdio (the default: the MCP
client starts it as a command) or over streamable HTTP with --listen ADDR
(the endpoint is http://ADDR/mcp; the address is printed on stderr).

The client becomes a mailbox agent: with --agent ID at once, else when it
calls the register tool. The agent's card (--description, --capability)
is registered and heartbeats while the server runs; it is marked offline
when the server ends. One server is one agent: every HTTP session shares it.

Tools: register, list_agents, send_message (an agent id, all, cap:NAME,
role:NAME, any:NAME or a pattern), delegate_task, check_inbox (takes the
messages that arrived, each handed once; they are acknowledged at the next
check_inbox, or at once with ack), reply, update_task (accept, progress,
complete, fail), thread and pending. The inbox is the resource
switchboard://inbox: a client that subscribes to it is notified when mail
arrives. The mailbox's rules apply as to any agent (allowFrom, the loop
rules, maxConcurrentTasks, message size): the channel settings are the
config's channels.mailbox section when its agentId is the agent, else the
defaults on the configured store; --root puts the mailbox on the filesystem
store in that folder.

Stdout carries the MCP protocol; logs go to stderr. See docs/mcp.md for the
configuration of Claude Code, Codex and other clients.`,
		Example: `  switchboard mcp --agent claude --capability code-review
  switchboard mcp --agent codex --listen 127.0.0.1:8765`,
		Args: exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			if agent != "" {
				if err := envelope.ValidateAgentID(agent); err != nil {
					return asUsage(fmt.Errorf("--agent: %w", err))
				}
			}
			return a.serveMCP(cmd.Context(), mcpOptions{agentID: agent, description: description, capabilities: capabilities, listen: listen})
		}),
	}
	cmd.Flags().StringVar(&agent, "agent", "", "register as this agent at once (else the client calls register)")
	cmd.Flags().StringVar(&description, "description", "", "the agent's description on its card")
	cmd.Flags().StringSliceVar(&capabilities, "capability", nil, "a capability on the agent's card (repeat, or comma-separated)")
	cmd.Flags().StringVar(&listen, "listen", "", "serve streamable HTTP on ADDR (host:port) instead of stdio")
	a.addLogFlags(cmd, "warn")
	return cmd
}

// mcpOptions are the mcp command's flags.
type mcpOptions struct {
	// agentID, when set, registers the agent at once with this card.
	agentID, description string
	capabilities         []string
	// listen serves streamable HTTP on this host:port; "" serves stdio.
	listen string
}

// serveMCP serves the mailbox as an MCP server over stdio, or over
// streamable HTTP on o.listen, until ctx ends or the client goes.
func (a *app) serveMCP(ctx context.Context, o mcpOptions) error {
	if _, err := a.settings(); err != nil {
		return err
	}
	channelConfig := func(id string) (mailbox.Config, error) {
		cfg, _, err := a.recvConfig(id)
		return cfg, err
	}
	srv, err := mcpserver.New(mcpserver.Options{Config: channelConfig, Logger: a.logger(slog.LevelWarn), Version: a.env.Version})
	if err != nil {
		return err
	}
	defer func() {
		stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
		defer cancel()
		if err := srv.Close(stop); err != nil {
			fmt.Fprintf(a.env.Stderr, "switchboard: mcp: stop the mailbox: %v\n", err)
		}
	}()
	if o.agentID != "" {
		card := mcpserver.Card{AgentID: o.agentID, Description: o.description, Capabilities: o.capabilities}
		if err := srv.Register(ctx, card); err != nil {
			return err
		}
	}
	if o.listen != "" {
		return serveMCPHTTP(ctx, srv, o.listen, a.env.Stderr)
	}
	return serveMCPStdio(ctx, srv, a.env.Stdin, a.env.Stdout)
}
