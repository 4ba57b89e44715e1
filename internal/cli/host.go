package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/agentloop/mailboxtools"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/config"
	feishustub "github.com/switchboard-dev/switchboard/examples/feishu-stub" // registers the channel type "feishu"
)

// host is what `switchboard run` runs: a bus, the channels the config
// enables, and the agent loop that answers what they receive, with the
// mailbox tools and the mailbox's acceptance judgement wired to the loop.
type host struct {
	cfg      *config.Config
	log      *slog.Logger
	bus      *bus.Bus
	manager  *channels.Manager
	loop     *agentloop.Loop
	provider string           // the provider's name
	mailbox  *mailbox.Channel // nil when channels.mailbox is not enabled

	mu       sync.Mutex
	cancel   context.CancelFunc
	loopDone chan struct{} // closed when the loop has ended
	loopErr  error         // why, once loopDone is closed
	stopped  bool
}

// hostOptions are the extras of newHost; zero values take defaults.
type hostOptions struct {
	// Logger receives every log of the host (nil discards).
	Logger *slog.Logger
	// Registry builds the channels (default channels.DefaultRegistry()).
	Registry *channels.Registry
	// Provider replaces the one agents.defaults.provider names.
	Provider agentloop.Provider
	// Environ is the environment (for OPENAI_API_KEY).
	Environ []string
}

// newHost builds a host from cfg. Nothing runs until start.
func newHost(cfg *config.Config, opts hostOptions) (*host, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Registry == nil {
		opts.Registry = channels.DefaultRegistry()
	}
	h := &host{cfg: cfg, log: opts.Logger, bus: bus.New(0)}
	fail := func(err error) (*host, error) {
		h.bus.Close()
		return nil, err
	}
	provider, name := opts.Provider, "custom"
	if provider == nil {
		var err error
		if provider, name, err = newProvider(cfg, opts.Environ); err != nil {
			return fail(err)
		}
	}
	h.provider = name
	h.manager = channels.NewManager(h.bus, channels.ManagerConfig{Logger: h.log})
	if err := h.manager.Build(opts.Registry, cfg); err != nil {
		return fail(err)
	}
	if len(h.manager.Names()) == 0 {
		from := cfg.Path
		if from == "" {
			from = "the config (no file found)"
		}
		return fail(fmt.Errorf("no channel is enabled in %s: set channels.mailbox.enabled (or channels.feishu.enabled) to true", from))
	}
	lc := agentloop.FromDefaults(cfg.Agents.Defaults)
	lc.Bus, lc.Provider, lc.Logger = h.bus, provider, h.log
	if ch, ok := h.manager.Channel(mailbox.ChannelName); ok {
		mb, ok := ch.(*mailbox.Channel)
		if !ok {
			return fail(fmt.Errorf("channels.mailbox: the channel type %q is not the mailbox channel (%T)", mailbox.ChannelName, ch))
		}
		h.mailbox = mb
		tools, err := agentloop.NewTools(mailboxtools.New(mb, mailboxtools.Options{})...)
		if err != nil {
			return fail(err)
		}
		lc.Tools, lc.Capabilities = tools, mb.Config().Capabilities
	}
	loop, err := agentloop.New(lc)
	if err != nil {
		return fail(fmt.Errorf("agents.defaults: %w", err))
	}
	h.loop = loop
	if h.mailbox != nil {
		h.mailbox.SetJudge(loop.Judge) // the mailbox asks the agent before accepting a task
	}
	return h, nil
}

// start starts the channels, then the loop. The loop ends early only on
// a failure; ended tells when.
func (h *host) start(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.loopDone != nil || h.stopped {
		return errors.New("host already started")
	}
	if err := h.manager.Start(ctx); err != nil {
		return err
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

// ended is closed when the loop has ended (nil before start).
func (h *host) ended() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.loopDone
}

// describe returns the attributes of the "host running" log line: the
// agent, the channels, the provider and the Feishu webhook's URL.
func (h *host) describe() []any {
	attrs := []any{"channels", h.manager.Names(), "provider", h.provider}
	if h.mailbox != nil {
		attrs = append([]any{"agent", h.mailbox.AgentID()}, attrs...)
		attrs = append(attrs, "capabilities", h.mailbox.Config().Capabilities)
	}
	if url := h.webhookURL(); url != "" {
		attrs = append(attrs, "webhook", url)
	}
	attrs = append(attrs, "workspace", h.loop.Workspace())
	return attrs
}

// webhookURL returns the Feishu stub's webhook URL once it listens ("" if
// the stub is not enabled).
func (h *host) webhookURL() string {
	ch, ok := h.manager.Channel(feishustub.ChannelName)
	if !ok {
		return ""
	}
	fs, ok := ch.(*feishustub.Channel)
	if !ok || fs.Addr() == nil {
		return ""
	}
	path := feishustub.DefaultConfig().WebhookPath
	if sec, ok := h.cfg.Section(feishustub.ChannelName); ok {
		if c, err := feishustub.DecodeConfig(sec); err == nil {
			path = c.WebhookPath
		}
	}
	return "http://" + fs.Addr().String() + path
}
