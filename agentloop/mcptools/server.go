package mcptools

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/backoff"
)

// clientInfo is how the agent loop introduces itself to MCP servers.
var clientInfo = &mcp.Implementation{Name: "switchboard", Version: "1"}

// server is one configured MCP server and its supervisor: it connects,
// offers the tools, waits for the connection to end and reconnects after
// a pause.
type server struct {
	name  string
	cfg   config.MCPServerConfig
	tools *agentloop.Tools
	opts  Options

	tried     chan struct{} // closed after the first connection attempt
	triedOnce sync.Once

	mu      sync.Mutex
	session *mcp.ClientSession // nil while not connected
	offered map[string]bool    // the remote tool names the session offers
	reason  string             // why it is down; "" before its first attempt ended
}

func newServer(name string, cfg config.MCPServerConfig, tools *agentloop.Tools, opts Options) *server {
	return &server{name: name, cfg: cfg, tools: tools, opts: opts, tried: make(chan struct{})}
}

// run keeps the server connected until ctx ends.
func (s *server) run(ctx context.Context) {
	log := s.opts.Logger.With("server", s.name)
	pauses := backoff.Policy{Initial: s.opts.MinBackoff, Max: s.opts.MaxBackoff}.Start()
	for {
		began := s.opts.Clock.Now()
		session, err := s.connect(ctx)
		if err != nil && ctx.Err() == nil {
			s.setDown(err.Error()) // before Start returns: the first turn knows
		}
		s.triedOnce.Do(func() { close(s.tried) })
		var pause time.Duration
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			pause = pauses.Next()
			log.Warn("mcp server failed to start; retrying", "err", err, "pause", pause)
		} else {
			stop := context.AfterFunc(ctx, func() { session.Close() })
			err := session.Wait()
			stop()
			s.setDown(ended(err))
			if ctx.Err() != nil {
				session.Close()
				log.Info("mcp server stopped")
				return
			}
			if s.opts.Clock.Now().Sub(began) >= s.opts.MaxBackoff {
				pauses.Reset()
			}
			pause = pauses.Next()
			log.Warn("mcp server ended; restarting", "err", err, "pause", pause)
		}
		if backoff.Sleep(ctx, s.opts.Clock, pause) != nil {
			return
		}
	}
}

// connect starts the server, lists its tools and offers them.
func (s *server) connect(ctx context.Context) (*mcp.ClientSession, error) {
	transport, err := s.opts.Transport(s.name, s.cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.ConnectLimit(s.opts.ConnectTimeout))
	defer cancel()
	client := mcp.NewClient(clientInfo, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	offered := map[string]bool{}
	var added []string
	for tool, err := range session.Tools(ctx, nil) {
		if err != nil {
			session.Close()
			return nil, fmt.Errorf("list tools: %w", err)
		}
		offered[tool.Name] = true
		name := ToolName(s.name, tool.Name)
		if _, ok := s.tools.Get(name); ok {
			continue // offered before a restart: the proxy finds the new session
		}
		if err := s.tools.Add(newTool(s, name, tool)); err != nil {
			s.opts.Logger.Warn("mcp tool not offered", "server", s.name, "tool", tool.Name, "err", err)
			continue
		}
		added = append(added, name)
	}
	s.setSession(session, offered)
	s.opts.Logger.Info("mcp server connected", "server", s.name, "tools", len(offered), "added", added)
	s.opts.Connected(s.name, slices.Sorted(maps.Keys(offered)))
	return session, nil
}

func (s *server) setSession(session *mcp.ClientSession, offered map[string]bool) {
	s.mu.Lock()
	s.session, s.offered, s.reason = session, offered, ""
	s.mu.Unlock()
}

// setDown records that the server is not connected, and why.
func (s *server) setDown(reason string) {
	s.mu.Lock()
	s.session, s.offered, s.reason = nil, nil, reason
	s.mu.Unlock()
}

// ended is the reason of a server whose session ended with err.
func ended(err error) string {
	if err == nil {
		return "its connection ended"
	}
	return "its connection ended: " + err.Error()
}

// status says what the server is when it is not connected ("" when it
// is): down with the last failure and retrying, or still connecting the
// first time.
func (s *server) status() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.session != nil:
		return ""
	case s.reason == "":
		return fmt.Sprintf("is still connecting (connectTimeout %s)", s.cfg.ConnectLimit(s.opts.ConnectTimeout))
	}
	return "is down: " + s.reason + "; retrying"
}

// current returns the live session and whether it offers remote.
func (s *server) current(remote string) (*mcp.ClientSession, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session, s.offered[remote]
}
