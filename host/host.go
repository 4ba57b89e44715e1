package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/looptrace"
	"github.com/switchboard-dev/switchboard/agentloop/mcptools"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/config"
)

// Host is what `switchboard run` runs: a bus, the channels the config
// enables, and the agent loop that answers what they receive, with what
// the channels offer the loop wired into it (the mailbox's tools, its
// budget keeper, its approval book, its acceptance judgement and the
// agent's identity: see agentloop.ToolChannel and the others). It knows
// no channel type. Create it with New.
type Host struct {
	cfg      *config.Config
	log      *slog.Logger
	bus      *bus.Bus
	manager  *channels.Manager
	loop     *agentloop.Loop
	provider string // the provider's name
	// providerNote says which provider was chosen and why; Start logs it.
	providerNote choiceNote
	profile      *agent.Profile    // the agent's identity, nil when no channel gives one
	mcp          *mcptools.Servers // nil when tools.mcpServers is empty

	stopTimeout time.Duration

	mu       sync.Mutex
	cancel   context.CancelFunc
	loopDone chan struct{} // closed when the loop has ended
	loopErr  error         // why, once loopDone is closed
	stopped  bool
}

// Options are the extras of New; zero values take defaults.
type Options struct {
	// Logger receives every log of the host (nil discards).
	Logger *slog.Logger
	// Registry builds the channels (default channels.DefaultRegistry()).
	Registry *channels.Registry
	// Provider replaces the one agents.defaults.provider names.
	Provider agent.Provider
	// Providers builds that provider, by its kind (default
	// agentloop.DefaultProviderRegistry(): the provider packages the
	// program imports).
	Providers *agentloop.ProviderRegistry
	// Environ is the environment, for the providers' keys (OPENAI_API_KEY,
	// ANTHROPIC_API_KEY, ...); nil: os.Environ().
	Environ []string
	// HTTPClient, when set, makes the provider's requests (proxies, tests
	// that answer for the providers' real endpoints).
	HTTPClient *http.Client
	// Clock runs the channels' deadlines and tickers (default clock.Real).
	Clock clock.Clock
	// StopTimeout bounds each step of Stop (default 10 seconds).
	StopTimeout time.Duration
	// Hooks observe the agent loop's turns, provider calls and tool calls
	// (metrics, traces; see agent.Hook). They run after those the
	// channels offer (the mailbox's budget keeper of
	// channels.mailbox.budget, which also records every turn's usage in
	// the audit log).
	Hooks []agent.Hook
}

// New builds a host from cfg. Nothing runs until Start.
func New(cfg *config.Config, opts Options) (*Host, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Registry == nil {
		opts.Registry = channels.DefaultRegistry()
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ()
	}
	if opts.StopTimeout <= 0 {
		opts.StopTimeout = defaultStopTimeout
	}
	h := &Host{cfg: cfg, log: opts.Logger, bus: bus.New(0), stopTimeout: opts.StopTimeout}
	fail := func(err error) (*Host, error) {
		h.bus.Close()
		return nil, err
	}
	if err := cfg.Report.Err(); err != nil { // left by a lenient Load: a host uses every section
		return fail(err)
	}
	provider, name := opts.Provider, "custom"
	if provider == nil {
		var err error
		if provider, name, h.providerNote, err = newProvider(cfg, opts); err != nil {
			return fail(err)
		}
	}
	h.provider = name
	h.manager = channels.NewManager(h.bus, channels.ManagerConfig{Logger: h.log, Clock: opts.Clock})
	if err := h.manager.Build(opts.Registry, cfg); err != nil {
		return fail(err)
	}
	if err := CheckChannels(opts.Registry, cfg); err != nil {
		return fail(err)
	}
	logIgnored(h.log, cfg, h.manager.Skipped())
	lc := agentloop.FromDefaults(cfg.Agents.Defaults)
	lc.Bus, lc.Provider, lc.Logger = h.bus, provider, h.log
	lc.Hooks = append(lc.Hooks, opts.Hooks...)
	lc.Approval.Clock = opts.Clock
	offered, err := offersOf(h.manager)
	if err == nil {
		err = offered.apply(&lc)
	}
	if err != nil {
		return fail(err)
	}
	h.profile = offered.profile
	mcp, tools, err := newMCP(cfg, lc.Tools, h.log, opts.Clock, opts.Environ)
	if err != nil {
		return fail(err)
	}
	h.mcp, lc.Tools = mcp, tools
	if mcp != nil {
		lc.ToolStatus = mcp // the model is told which servers are down
	}
	// First, so that the other hooks run inside the turn's span.
	lc.Hooks = append([]agent.Hook{looptrace.New(lc.AgentID)}, lc.Hooks...)
	loop, err := agentloop.New(lc)
	if err != nil {
		return fail(fmt.Errorf("agents.defaults: %w", err))
	}
	h.loop = loop
	offered.judge(loop) // a channel asks the agent before it accepts a task
	return h, nil
}

// Start starts the channels, then the loop. The loop ends early only on
// a failure; Done tells when.
func (h *Host) Start(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.loopDone != nil || h.stopped {
		return errors.New("host already started")
	}
	if err := h.manager.Start(ctx); err != nil {
		return err
	}
	if err := h.startMCP(ctx); err != nil {
		// The channels started: stop them (the mailbox marks the agent
		// offline), since Stop knows only a host whose loop ran.
		sctx, cancel := context.WithTimeout(context.Background(), h.stopTimeout)
		defer cancel()
		if serr := h.manager.Stop(sctx); serr != nil {
			h.log.Warn("channels not stopped after a failed start", "err", serr)
		}
		return err
	}
	if h.providerNote.msg != "" {
		h.providerNote.log(h.log)
	}
	loopCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	h.cancel, h.loopDone = cancel, done
	go func() {
		err := h.loop.Run(loopCtx)
		h.mu.Lock()
		h.loopErr = err
		h.mu.Unlock()
		close(done)
	}()
	return nil
}

// Done is closed when the agent loop has ended (nil before Start); Err
// says why.
func (h *Host) Done() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.loopDone
}

// Describe returns the attributes of the "host running" log line: the
// agent and its capabilities (when a channel gives it an identity), the
// channels, the provider, the workspace and the address of each
// channel that listens (channels.Addresser).
func (h *Host) Describe() []any {
	attrs := []any{"channels", h.manager.Names(), "provider", h.provider}
	if h.profile != nil {
		attrs = append([]any{"agent", h.profile.ID}, attrs...)
		attrs = append(attrs, "capabilities", h.profile.Capabilities)
	}
	for _, name := range h.manager.Names() {
		if ch, ok := h.manager.Channel(name); ok {
			if ad, ok := ch.(channels.Addresser); ok {
				if what, where := ad.Address(); where != "" {
					attrs = append(attrs, what, where)
				}
			}
		}
	}
	if h.mcp != nil {
		attrs = append(attrs, "mcpServers", h.mcp.Names())
	}
	attrs = append(attrs, "workspace", h.loop.Workspace())
	return attrs
}

// AgentID returns the agent's id, as the channel that gives it an
// identity says (the mailbox's agentId), or "" without one.
func (h *Host) AgentID() string {
	if h.profile == nil {
		return ""
	}
	return h.profile.ID
}

// Bus returns the host's bus.
func (h *Host) Bus() *bus.Bus { return h.bus }

// Channel returns the running channel called name.
func (h *Host) Channel(name string) (channels.Channel, bool) { return h.manager.Channel(name) }

// Loop returns the agent loop.
func (h *Host) Loop() *agentloop.Loop { return h.loop }

// Provider returns the name of the provider in use ("custom" for
// Options.Provider).
func (h *Host) Provider() string { return h.provider }
