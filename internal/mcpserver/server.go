package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/clock"
)

// InboxURI is the resource of the agent's inbox: the messages that
// arrived and were not yet taken with check_inbox.
const InboxURI = "switchboard://inbox"

// DefaultMaxQueued is how many arrived messages the server holds for the
// client before it stops taking more from the mailbox (they wait there).
const DefaultMaxQueued = 256

// ErrNotRegistered is returned by the mailbox tools before the client has
// an agent id.
var ErrNotRegistered = errors.New("not registered: call register with an agent_id first (or start `switchboard mcp --agent ID`)")

// Options configure New.
type Options struct {
	// Config returns the mailbox channel's settings for an agent (the
	// store, allowFrom, limits); required.
	Config func(agentID string) (mailbox.Config, error)
	// Logger receives the channel's and the server's logs (nil discards).
	Logger *slog.Logger
	// Clock runs the channel's timers (default clock.Real).
	Clock clock.Clock
	// MaxQueued bounds the messages held for the client (default
	// DefaultMaxQueued).
	MaxQueued int
	// Workspace is the folder a client's relative file paths are read
	// from and the artifacts it reads are fetched into (an "artifacts"
	// folder in it); empty: the current folder.
	Workspace string
	// Version is the server's version, as MCP clients are told.
	Version string
	// Auth, when set, is asked whether a client that calls the register
	// tool is the agent it names (the server over HTTP); nil trusts it
	// (over stdio the client is whoever started the server, who can use
	// the mailbox anyway). A client must then give the proof configured
	// for the agent, and may claim an agent with none configured only
	// when the mailbox does not know it yet: an agent whose process is
	// down is not taken over. Register, the operator's (--agent), is not
	// asked.
	Auth AgentAuth
}

// Card is what an agent registers: its id and what it offers.
type Card struct {
	AgentID      string
	Description  string
	Capabilities []string
}

// Server is the mailbox as an MCP server for one agent. Create it with
// New, serve MCP() over a transport, and Close it at the end.
type Server struct {
	opts Options
	log  *slog.Logger
	mcp  *mcp.Server

	mu     sync.Mutex
	agent  *agent // nil until registered
	closed bool
	// nonces are the challenge tool's, each until it expires (keyproof.go).
	nonces map[string]time.Time
}

// agent is the registered mailbox agent: its channel, the bus it
// publishes to, and the messages waiting for the client.
type agent struct {
	ch     *mailbox.Channel
	bus    *bus.Bus
	inbox  *inbox
	cancel context.CancelFunc
	done   chan struct{} // closed when the consumer ended
	// recovering: the first look at the inbox waits for what the mailbox
	// hands over again at start (awaitRecovered).
	recovering sync.Once
}

// New returns a server with no agent yet.
func New(opts Options) (*Server, error) {
	if opts.Config == nil {
		return nil, errors.New("mcpserver: Options.Config is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxQueued <= 0 {
		opts.MaxQueued = DefaultMaxQueued
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, log: opts.Logger}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "switchboard", Title: "switchboard mailbox", Version: opts.Version},
		&mcp.ServerOptions{
			Instructions:       instructions,
			SubscribeHandler:   s.subscribe,
			UnsubscribeHandler: s.unsubscribe,
			Capabilities:       &mcp.ServerCapabilities{},
		})
	s.addTools()
	s.mcp.AddResource(&mcp.Resource{URI: InboxURI, Name: "inbox", MIMEType: "application/json",
		Description: "The messages that arrived for this agent and were not taken with check_inbox yet. Subscribe to be told when mail arrives."},
		s.readInbox)
	return s, nil
}

const instructions = `This server is a switchboard mailbox: you are an agent that other agents ` +
	`(switchboard, nanobot, other coding agents) can message and give tasks to. ` +
	`Register first unless the server was started with --agent. ` +
	`Read new mail with check_inbox (or subscribe to switchboard://inbox). ` +
	`Answer a request with reply; end a task you were given with update_task; ` +
	`hand work to another agent with delegate_task, whose result arrives in your inbox.`

// MCP returns the MCP server to serve (stdio: Run with a StdioTransport;
// HTTP: mcp.NewStreamableHTTPHandler).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Register makes the client agent c.AgentID: it starts the mailbox channel
// (registering the card and heartbeating) and begins taking its mail.
// Registering again as the same agent does nothing; as another, fails.
// The caller vouches for the client (the operator's --agent): the
// register tool asks Options.Auth first.
func (s *Server) Register(ctx context.Context, c Card) error {
	if err := envelope.ValidateAgentID(c.AgentID); err != nil {
		return fmt.Errorf("agent_id: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("the server is closing")
	}
	if s.agent != nil {
		if id := s.agent.ch.AgentID(); id != c.AgentID {
			return fmt.Errorf("already registered as %q; one server is one agent (start another `switchboard mcp` for %q)", id, c.AgentID)
		}
		return nil
	}
	cfg, err := s.opts.Config(c.AgentID)
	if err != nil {
		return err
	}
	cfg.AgentID = c.AgentID
	if c.Description != "" {
		cfg.Description = c.Description
	}
	if len(c.Capabilities) > 0 {
		cfg.Capabilities = c.Capabilities
	}
	b := bus.New(1)
	ws := s.opts.Workspace
	if ws == "" {
		ws, _ = os.Getwd()
	}
	ch, err := mailbox.New(cfg, b, mailbox.Options{Logger: s.log, Clock: s.opts.Clock, Workspace: ws})
	if err != nil {
		b.Close()
		return err
	}
	if err := ch.Start(ctx); err != nil {
		b.Close()
		return fmt.Errorf("register %s: %w", c.AgentID, err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	a := &agent{ch: ch, bus: b, cancel: cancel, done: make(chan struct{}),
		inbox: newInbox(s.opts.MaxQueued)}
	go func() {
		defer close(a.done)
		a.inbox.consume(runCtx, b, s.notify)
	}()
	s.agent = a
	s.log.Info("mcp client registered", "agent", c.AgentID)
	return nil
}

// registerClient is Register for a client that names itself with the
// register tool, giving proof when Options.Auth asks for it (see
// authorize). A refusal is logged.
func (s *Server) registerClient(ctx context.Context, c Card, proof string) error {
	if err := envelope.ValidateAgentID(c.AgentID); err != nil {
		return fmt.Errorf("agent_id: %w", err)
	}
	if a, err := s.current(); err == nil && a.ch.AgentID() == c.AgentID {
		return nil // registered as it already
	}
	if err := s.authorize(ctx, c.AgentID, proof); err != nil {
		s.log.Warn("mcp registration refused", "agent", c.AgentID, "err", err)
		return err
	}
	return s.Register(ctx, c)
}

// current returns the registered agent or ErrNotRegistered.
func (s *Server) current() (*agent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.agent == nil {
		return nil, ErrNotRegistered
	}
	return s.agent, nil
}

// Close stops the agent's channel (marking it offline). Messages taken
// but not acknowledged, tasks not ended and requests not answered stay
// claimed and come back on the next start.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	a := s.agent
	s.closed = true
	s.mu.Unlock()
	if a == nil {
		return nil
	}
	a.cancel()
	<-a.done
	err := a.ch.Stop(ctx)
	a.bus.Close()
	return err
}

// notifyTimeout bounds the sending of one inbox notification.
const notifyTimeout = 5 * time.Second

// notify tells the clients subscribed to InboxURI that the inbox changed.
func (s *Server) notify() {
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	if err := s.mcp.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: InboxURI}); err != nil {
		s.log.Warn("inbox notification not sent", "err", err)
	}
}

func (s *Server) subscribe(_ context.Context, req *mcp.SubscribeRequest) error {
	if req.Params.URI != InboxURI {
		return fmt.Errorf("no resource %q to subscribe to; the inbox is %s", req.Params.URI, InboxURI)
	}
	return nil
}

func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	if req.Params.URI != InboxURI {
		return fmt.Errorf("no resource %q to unsubscribe from", req.Params.URI)
	}
	return nil
}
