package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"

	"github.com/spf13/cobra"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mcpserver"
	"github.com/switchboard-dev/switchboard/internal/token"
)

func (a *app) mcpCommand() *cobra.Command {
	var (
		agent, description, listen string
		tokenFile, agentTokens     string
		capabilities               []string
	)
	cmd := &cobra.Command{
		Use:   "mcp [--agent ID] [--description S] [--capability NAME]... [--listen ADDR [--token-file FILE] [--agent-tokens DIR]]",
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

Over HTTP every request carries the server's token (Authorization: Bearer)
when one is set: SWITCHBOARD_MCP_TOKEN, or --token-file FILE (a file only
its owner can read). An address other than loopback is refused without
one. A client that calls register over HTTP proves it is the agent: with
the token in DIR/ID.token of --agent-tokens DIR, given as the tool's token
argument; an agent with no token there can be claimed only while the
mailbox does not know it (no card, no inbox). The thread tool shows only
the agent's own conversations. See docs/security.md.

Stdout carries the MCP protocol; logs go to stderr. See docs/mcp.md for the
configuration of Claude Code, Codex and other clients.`,
		Example: `  switchboard mcp --agent claude --capability code-review
  switchboard mcp --agent codex --listen 127.0.0.1:8765
  SWITCHBOARD_MCP_TOKEN=... switchboard mcp --listen 0.0.0.0:8765 --agent-tokens ~/.nanobot/mcp-tokens`,
		Args: exactArgs(),
		RunE: a.action(func(cmd *cobra.Command, _ []string) error {
			if agent != "" {
				if err := envelope.ValidateAgentID(agent); err != nil {
					return asUsage(fmt.Errorf("--agent: %w", err))
				}
			}
			tok, err := a.mcpToken(listen, tokenFile, agentTokens)
			if err != nil {
				return err
			}
			return a.serveMCP(cmd.Context(), mcpOptions{agentID: agent, description: description, capabilities: capabilities,
				listen: listen, token: tok, agentTokens: agentTokens})
		}),
	}
	cmd.Flags().StringVar(&agent, "agent", "", "register as this agent at once (else the client calls register)")
	cmd.Flags().StringVar(&description, "description", "", "the agent's description on its card")
	cmd.Flags().StringSliceVar(&capabilities, "capability", nil, "a capability on the agent's card (repeat, or comma-separated)")
	cmd.Flags().StringVar(&listen, "listen", "", "serve streamable HTTP on ADDR (host:port) instead of stdio")
	cmd.Flags().StringVar(&tokenFile, "token-file", "", "with --listen: the token every request must carry, read from FILE (or set "+mcpTokenEnv+")")
	cmd.Flags().StringVar(&agentTokens, "agent-tokens", "", "with --listen: the folder of agents' tokens (ID.token) a client registering as ID must give")
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
	// token is what every HTTP request must carry ("": none, on a
	// loopback address only); agentTokens the folder of the agents'
	// tokens a client registering over HTTP proves itself with.
	token, agentTokens string
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
	opts := mcpserver.Options{Config: channelConfig, Logger: a.logger(slog.LevelWarn), Version: a.env.Version}
	if o.listen != "" {
		opts.Auth = mcpserver.TokenDir{Dir: o.agentTokens}
	}
	srv, err := mcpserver.New(opts)
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
		return serveMCPHTTP(ctx, srv, o.listen, o.token, a.env.Stderr)
	}
	return serveMCPStdio(ctx, srv, a.env.Stdin, a.env.Stdout)
}

// mcpTokenEnv names the environment variable that holds the token of
// `mcp --listen`.
const mcpTokenEnv = "SWITCHBOARD_MCP_TOKEN"

// mcpToken returns the token every HTTP request must carry: from
// --token-file or SWITCHBOARD_MCP_TOKEN, "" for none. An address that is
// not loopback is refused without one; the token flags are refused
// without --listen.
func (a *app) mcpToken(listen, file, agentTokens string) (string, error) {
	fromEnv, envSet := a.lookupEnv(mcpTokenEnv)
	if listen == "" {
		if file != "" || agentTokens != "" {
			return "", asUsage(errors.New("--token-file and --agent-tokens go with --listen (over stdio the client is the program that starts the server)"))
		}
		return "", nil
	}
	loopback, err := isLoopback(listen)
	if err != nil {
		return "", asUsage(fmt.Errorf("--listen %q: %w", listen, err))
	}
	tok := ""
	switch {
	case file != "" && envSet:
		return "", asUsage(fmt.Errorf("both --token-file and %s are set: give the token one way", mcpTokenEnv))
	case file != "":
		if tok, err = token.Read(file); err != nil {
			return "", fmt.Errorf("--token-file: %w", err)
		}
	case envSet:
		if err := token.Check(fromEnv); err != nil {
			return "", asUsage(fmt.Errorf("%s: %w", mcpTokenEnv, err))
		}
		tok = fromEnv
	}
	if !loopback && tok == "" {
		return "", asUsage(fmt.Errorf("--listen %q is not a loopback address: set %s or give --token-file FILE with the token every request must carry, or listen on 127.0.0.1",
			listen, mcpTokenEnv))
	}
	if agentTokens != "" {
		if fi, err := os.Stat(agentTokens); err != nil || !fi.IsDir() {
			return "", asUsage(fmt.Errorf("--agent-tokens %q: not a folder", agentTokens))
		}
	}
	return tok, nil
}
