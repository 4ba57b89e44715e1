package a2a

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/a2a/internal/remote"
	"github.com/switchboard-dev/switchboard/a2a/internal/server"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
)

// Options are what New needs besides the Config.
type Options struct {
	// Mailbox returns the mailbox settings of an identity the gateway runs
	// (its own, each connected agent's): the store, the limits, the
	// timeouts. The gateway sets the id's description, capabilities,
	// roles, allowFrom and task capacity itself. Required.
	Mailbox func(agentID string) (mailbox.Config, error)
	// Logger receives the gateway's logs (nil discards).
	Logger *slog.Logger
	// Clock runs the gateway's and its mailbox channels' timers.
	Clock clock.Clock
	// Version is the version the served cards name.
	Version string
	// HTTPClient makes the requests to connected agents (nil: a client
	// without an overall timeout; each call has its own deadline).
	HTTPClient *http.Client
}

// Gateway is the A2A gateway: the server of the served agents and the
// participants of the connected ones. It is a channels.Channel of type
// "a2a" that sends nothing. Create it with New.
type Gateway struct {
	cfg  Config
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	st      *store.Store
	srv     *server.Server
	hs      *http.Server
	ln      net.Listener
	remotes []*remote.Participant
	served  chan error
}

var (
	_ channels.Channel   = (*Gateway)(nil)
	_ channels.Addresser = (*Gateway)(nil)
)

// New returns a gateway for cfg, which must pass Validate. Nothing runs
// until Start.
func New(cfg Config, opts Options) (*Gateway, error) {
	if err := cfg.Validate("channels." + TypeName); err != nil {
		return nil, err
	}
	if opts.Mailbox == nil {
		return nil, errors.New("a2a: Options.Mailbox is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	return &Gateway{cfg: cfg, opts: opts, log: opts.Logger.With("channel", TypeName)}, nil
}

// Name implements channels.Channel.
func (g *Gateway) Name() string { return TypeName }

// Send implements channels.Channel: the gateway is no chat, and nothing is
// addressed to it.
func (g *Gateway) Send(context.Context, bus.OutboundMessage) error {
	return errors.New("the a2a gateway sends nothing to chats: its agents talk through the mailbox")
}

// Address implements channels.Addresser: where the server listens.
func (g *Gateway) Address() (what, where string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ln == nil {
		return "a2a", ""
	}
	return "a2a", g.publicURL()
}

// Addr returns the address the server listens on ("" before Start or
// without a server).
func (g *Gateway) Addr() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.ln == nil {
		return ""
	}
	return g.ln.Addr().String()
}

// publicURL is the base of the cards' URLs. Called with g.mu held.
func (g *Gateway) publicURL() string {
	if g.cfg.PublicURL != "" {
		return g.cfg.PublicURL
	}
	return "http://" + g.ln.Addr().String()
}

// Start opens the mailbox store, starts the server (its mailbox identity,
// then the listener) and the participants of the connected agents.
func (g *Gateway) Start(ctx context.Context) (err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.st != nil {
		return errors.New("a2a gateway already running")
	}
	mc, err := g.opts.Mailbox(g.cfg.AgentID)
	if err != nil {
		return err
	}
	sc := mc.StoreConfig()
	sc.Logger = g.log
	st, err := store.Open(mc.Backend, sc)
	if err != nil {
		return fmt.Errorf("open mailbox store: %w", err)
	}
	g.st = st
	defer func() {
		if err != nil {
			g.stopLocked(context.WithoutCancel(ctx))
		}
	}()
	if g.cfg.Listen != "" {
		if err := g.startServer(ctx); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(g.cfg.Connect)) {
		p, err := g.startRemote(ctx, name, g.cfg.Connect[name])
		if err != nil {
			return err
		}
		g.remotes = append(g.remotes, p)
	}
	return nil
}

// identity returns the mailbox config of an identity the gateway runs.
func (g *Gateway) identity(id, description string, capabilities, roles []string) (mailbox.Config, error) {
	mc, err := g.opts.Mailbox(id)
	if err != nil {
		return mc, err
	}
	mc.Enabled, mc.AgentID = true, id
	mc.Description, mc.Capabilities, mc.Roles = description, capabilities, roles
	return mc, nil
}

// startServer starts the gateway's mailbox identity and its A2A server.
func (g *Gateway) startServer(ctx context.Context) error {
	mc, err := g.identity(g.cfg.AgentID, "A2A gateway: the tasks of A2A clients for "+strings.Join(g.cfg.Serve, ", "), nil, []string{"a2a-gateway"})
	if err != nil {
		return err
	}
	b := bus.New(16)
	ch, err := mailbox.New(mc, b, mailbox.Options{Backend: g.st, Logger: g.log.With("agent", g.cfg.AgentID), Clock: g.opts.Clock})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", g.cfg.Listen)
	if err != nil {
		return fmt.Errorf("channels.a2a.listen %s: %w", g.cfg.Listen, err)
	}
	g.ln = ln
	def := g.cfg.Default
	if def == "" {
		if i := slices.IndexFunc(g.cfg.Serve, func(s string) bool { return s != "*" }); i >= 0 {
			def = g.cfg.Serve[i]
		}
	}
	srv, err := server.New(server.Config{Agents: g.cfg.Serve, Default: def, PublicURL: g.publicURL(),
		Token: g.cfg.Token.Reveal(), TaskTimeout: seconds(g.cfg.TaskTimeout), ClientApproves: g.cfg.ClientApproves,
		KeepTasks: g.cfg.KeepTasks, Budget: g.cfg.Budget, Version: g.opts.Version},
		server.Options{Channel: ch, Bus: b, Store: g.st, Logger: g.log, Clock: g.opts.Clock})
	if err != nil {
		return err
	}
	if err := srv.Start(ctx); err != nil {
		return fmt.Errorf("start the a2a server: %w", err)
	}
	g.srv = srv
	g.hs = &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	g.served = make(chan error, 1)
	go func() { g.served <- g.hs.Serve(ln) }()
	g.log.Info("a2a server listening", "url", g.publicURL(), "agents", g.cfg.Serve, "auth", g.cfg.Token != "")
	return nil
}

// startRemote starts the participant of connected agent name.
func (g *Gateway) startRemote(ctx context.Context, name string, rc RemoteConfig) (*remote.Participant, error) {
	mc, err := g.identity(name, rc.Description, rc.Capabilities, []string{"a2a"})
	if err != nil {
		return nil, err
	}
	mc.MaxConcurrentTasks, mc.AllowFrom = rc.MaxConcurrentTasks, rc.AllowFrom
	p, err := remote.New(remote.Config{Name: name, URL: rc.URL, CardPath: rc.CardPath, Token: rc.Token.Reveal(),
		Description: rc.Description, Capabilities: rc.Capabilities, Refresh: seconds(rc.Refresh),
		Poll: rc.Poll, PollInterval: seconds(rc.PollInterval), Transport: rc.Transport},
		remote.Options{Mailbox: mc, Store: g.st, Logger: g.log.With("agent", name), Clock: g.opts.Clock, HTTPClient: g.opts.HTTPClient})
	if err != nil {
		return nil, err
	}
	if err := p.Start(ctx); err != nil {
		return nil, fmt.Errorf("connect A2A agent %s (%s): %w", name, rc.URL, err)
	}
	return p, nil
}

// Stop stops the participants, the server and its listener, and closes
// the store. What is under way stays claimed in the mailbox and resumes
// at the next start.
func (g *Gateway) Stop(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stopLocked(ctx)
}

func (g *Gateway) stopLocked(ctx context.Context) error {
	var errs []error
	for _, p := range g.remotes {
		errs = append(errs, p.Stop(ctx))
	}
	g.remotes = nil
	if g.hs != nil {
		errs = append(errs, g.hs.Shutdown(ctx))
		if err := <-g.served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
		g.hs = nil
	} else if g.ln != nil {
		errs = append(errs, g.ln.Close())
	}
	if g.srv != nil {
		errs = append(errs, g.srv.Stop(ctx))
		g.srv = nil
	}
	if g.st != nil {
		errs = append(errs, g.st.Close())
		g.st = nil
	}
	return errors.Join(errs...)
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
