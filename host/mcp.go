package host

import (
	"context"
	"errors"
	"log/slog"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/mcptools"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/config"
)

// newMCP returns the MCP servers of cfg's tools.mcpServers, whose tools go
// into tools (made when nil), or nil servers when none is configured. A
// bad entry is an error naming its key; a server that fails to start is
// not (it is retried once the host runs).
func newMCP(cfg *config.Config, tools *agentloop.Tools, log *slog.Logger, clk clock.Clock, environ []string) (*mcptools.Servers, *agentloop.Tools, error) {
	servers, err := cfg.MCPServers()
	if err != nil {
		return nil, tools, err
	}
	if len(servers) == 0 {
		return nil, tools, nil
	}
	if tools == nil {
		tools = &agentloop.Tools{}
	}
	return mcptools.New(servers, tools, mcptools.Options{Logger: log, Clock: clk, Environ: environ}), tools, nil
}

// startMCP starts the MCP servers, if any (see mcptools.Servers.Start).
func (h *Host) startMCP(ctx context.Context) error {
	if h.mcp == nil {
		return nil
	}
	return h.mcp.Start(ctx)
}

// stopMCP stops the MCP servers, if any, within the stop timeout.
func (h *Host) stopMCP() error {
	if h.mcp == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.stopTimeout)
	defer cancel()
	if err := h.mcp.Stop(ctx); err != nil {
		return errors.New("tools.mcpServers: " + err.Error())
	}
	return nil
}

// MCPServers returns the names of the MCP servers whose tools the agent
// loop offers (tools.mcpServers), sorted.
func (h *Host) MCPServers() []string {
	if h.mcp == nil {
		return nil
	}
	return h.mcp.Names()
}
