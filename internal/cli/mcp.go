package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
			return a.serveMCP(cmd.Context(), mcpserver.Card{AgentID: agent, Description: description, Capabilities: capabilities}, listen)
		}),
	}
	cmd.Flags().StringVar(&agent, "agent", "", "register as this agent at once (else the client calls register)")
	cmd.Flags().StringVar(&description, "description", "", "the agent's description on its card")
	cmd.Flags().StringSliceVar(&capabilities, "capability", nil, "a capability on the agent's card (repeat, or comma-separated)")
	cmd.Flags().StringVar(&listen, "listen", "", "serve streamable HTTP on ADDR (host:port) instead of stdio")
	a.addLogFlags(cmd, "warn")
	return cmd
}

func (a *app) serveMCP(ctx context.Context, card mcpserver.Card, listen string) error {
	if _, err := a.settings(); err != nil {
		return err
	}
	srv, err := mcpserver.New(mcpserver.Options{
		Config: func(id string) (mailbox.Config, error) {
			cfg, _, err := a.recvConfig(id)
			return cfg, err
		},
		Logger:  a.logger(slog.LevelWarn),
		Version: a.env.Version,
	})
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
	if card.AgentID != "" {
		if err := srv.Register(ctx, card); err != nil {
			return err
		}
	}
	if listen != "" {
		return a.serveMCPHTTP(ctx, srv, listen)
	}
	stdin := a.env.Stdin
	if stdin == nil {
		stdin = os.Stdin
	}
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{a.env.Stdout}}
	if err := srv.MCP().Run(ctx, t); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("mcp over stdio: %w", err)
	}
	return nil
}

// serveMCPHTTP serves streamable HTTP on addr until ctx ends.
func (a *app) serveMCPHTTP(ctx context.Context, srv *mcpserver.Server, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", addr, err)
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.MCP() }, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: stopTimeout}
	fmt.Fprintf(a.env.Stderr, "serving MCP on http://%s/mcp (Ctrl-C to stop)\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve MCP on %s: %w", addr, err)
	case <-ctx.Done():
	}
	// Open event streams never end by themselves: give the calls in
	// progress a moment, then cut what is left.
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	_ = hs.Shutdown(stop)
	return hs.Close()
}

// nopWriteCloser lets the MCP transport close stdout without closing it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
