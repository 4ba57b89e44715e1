package mcptools

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/config"
)

// Defaults of Options.
const (
	DefaultMinBackoff     = 500 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
	DefaultConnectTimeout = 20 * time.Second
	DefaultStartWait      = 5 * time.Second
)

// Options are the extras of New; zero values take defaults.
type Options struct {
	// Logger receives the servers' starts, failures and restarts (nil
	// discards).
	Logger *slog.Logger
	// Clock runs the restart backoff (default clock.Real).
	Clock clock.Clock
	// Environ is the environment stdio servers start with, before their
	// env entries (nil: os.Environ()).
	Environ []string
	// MinBackoff and MaxBackoff bound the pause before a restart, which
	// doubles after each failure (less a random part of up to half) and
	// starts again from MinBackoff after a server ran for MaxBackoff.
	MinBackoff, MaxBackoff time.Duration
	// ConnectTimeout bounds one connection: starting the server, the MCP
	// handshake and listing its tools; a server's connectTimeout
	// (config.MCPServerConfig) overrides it.
	ConnectTimeout time.Duration
	// StartWait bounds how long Start waits for the first attempts (so
	// that the tools of quick servers are there from the first turn);
	// slower servers go on connecting in the background.
	StartWait time.Duration
	// Connected, when set, is called each time a server is connected and
	// its tools are offered (the remote names).
	Connected func(server string, tools []string)
	// Transport makes the transport of a server for each connection
	// (default: the package's Transport, from the config).
	Transport func(name string, cfg config.MCPServerConfig) (mcp.Transport, error)
}

func (o *Options) setDefaults() {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Clock = clock.Or(o.Clock)
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = DefaultMinBackoff
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(DefaultMaxBackoff, o.MinBackoff)
	}
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.StartWait <= 0 {
		o.StartWait = DefaultStartWait
	}
	if o.Connected == nil {
		o.Connected = func(string, []string) {}
	}
	if o.Transport == nil {
		environ := o.Environ
		o.Transport = func(_ string, cfg config.MCPServerConfig) (mcp.Transport, error) {
			return Transport(cfg, environ)
		}
	}
}

// Servers runs the MCP servers of a config and offers their tools through
// a tool registry. Create it with New; Start and Stop it with the host.
type Servers struct {
	opts    Options
	tools   *agentloop.Tools
	servers []*server

	mu      sync.Mutex
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	started bool
}

// New returns the servers of cfgs (keyed by server name), whose tools are
// added to tools as they connect. Nothing runs until Start.
func New(cfgs map[string]config.MCPServerConfig, tools *agentloop.Tools, opts Options) *Servers {
	opts.setDefaults()
	s := &Servers{opts: opts, tools: tools}
	for _, name := range slices.Sorted(maps.Keys(cfgs)) {
		s.servers = append(s.servers, newServer(name, cfgs[name], tools, opts))
	}
	return s
}

// Names returns the servers' names, sorted.
func (s *Servers) Names() []string {
	names := make([]string, len(s.servers))
	for i, srv := range s.servers {
		names[i] = srv.name
	}
	return names
}

// Start starts every server in the background and waits (at most
// StartWait, or until ctx ends) for each one's first connection attempt,
// so that the tools of the quick servers are offered from the first turn;
// the others connect in the background, each within its connect limit. A server that fails is logged and retried; Start itself
// fails only when called twice.
func (s *Servers) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return errors.New("mcp servers already started")
	}
	s.started = true
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel = cancel
	for _, srv := range s.servers {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			srv.run(runCtx)
		}()
	}
	wait := s.opts.Clock.NewTimer(s.opts.StartWait)
	defer wait.Stop()
	waiting := true
	for _, srv := range s.servers {
		if waiting {
			select {
			case <-srv.tried:
				continue
			case <-wait.C():
				waiting = false // the others are not waited for either
			case <-ctx.Done():
				return nil
			}
		}
		select {
		case <-srv.tried:
		default:
			s.opts.Logger.Warn("mcp server still starting; its tools are offered once it is up", "server", srv.name,
				"connect_timeout", srv.cfg.ConnectLimit(s.opts.ConnectTimeout))
		}
	}
	return nil
}

// Stop stops every server (closing a stdio server's input, then
// terminating it) and waits for them until ctx ends.
func (s *Servers) Stop(ctx context.Context) error {
	s.mu.Lock()
	cancel := s.cancel
	s.mu.Unlock()
	if cancel == nil {
		return nil
	}
	cancel()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return errors.New("mcp servers did not stop in time: " + ctx.Err().Error())
	}
}
