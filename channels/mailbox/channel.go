package mailbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/budget"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// ChannelName is the name the mailbox channel has on the bus.
const ChannelName = meta.ChannelName

// Judge is the agent's own judgement on a task that passed every other
// acceptance check: accept, or decline with a reason. The agent loop fills
// it (agentloop.TaskChannel); without one every such task is accepted.
type Judge = func(ctx context.Context, task bus.InboundMessage) (accept bool, reason string)

// Options are the extras of New. Zero values take defaults.
type Options struct {
	// Backend is the store to use; nil opens the one the config names (and
	// the channel closes it on Stop).
	Backend *store.Store
	// Observer receives the store's events when the channel opens the
	// backend itself.
	Observer store.Observer
	// Logger receives logs; nil discards.
	Logger *slog.Logger
	// Clock runs task and reply deadlines, heartbeats and retention
	// (default clock.Real).
	Clock clock.Clock
}

// Channel is the mailbox channel. Create it with New.
type Channel struct {
	channels.Base
	cfg         Config
	backend     *store.Store
	ownsBackend bool
	observer    store.Observer
	meter       Meter // see SetMeter
	clk         clock.Clock

	received *recentMessages
	active   *ledger.Active // tasks this agent works on

	waiting *waiting // subtasks whose results the tasks this agent works on wait for
	// canceled are the tasks canceled while this process held them.
	canceled *canceledTasks

	keeperOnce sync.Once
	kept       atomic.Pointer[budget.Keeper] // the budget keeper, once made (see Hooks)

	mu      sync.Mutex
	judge   Judge
	budgets Budgets           // see SetBudgets
	sent    *ledger.Delegated // tasks this agent delegated
	replies *ledger.Replies   // requests owed a reply, both ways
	inbox   *store.Inbox
	guard   *limits.Guard // rate limits and breakers, made by Start
	intake  intake        // the receive loop, which StopReceiving ends first
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	running bool
}

var (
	_ channels.Channel     = (*Channel)(nil)
	_ channels.AllowLister = (*Channel)(nil)
)

// New returns a mailbox channel for cfg (which must pass Validate) that
// publishes to b.
func New(cfg Config, b *bus.Bus, opts Options) (*Channel, error) {
	if err := cfg.Validate("channels.mailbox"); err != nil {
		return nil, err
	}
	clk := clock.Or(opts.Clock)
	return &Channel{
		Base:     channels.NewBase(ChannelName, cfg.AllowFrom, b, opts.Logger),
		cfg:      cfg,
		backend:  opts.Backend,
		observer: opts.Observer,
		clk:      clk,
		received: newRecentMessages(4096),
		active:   ledger.NewActive(clk),
		waiting:  newWaiting(),
		canceled: newCanceledTasks(256),
	}, nil
}

// AgentID returns the agent this channel receives for.
func (c *Channel) AgentID() string { return c.cfg.AgentID }

// Config returns the channel's configuration.
func (c *Channel) Config() Config { return c.cfg }

// Profile returns who the agent is, as its card says: the identity the
// agent loop tells its model (agentloop.IdentityChannel).
func (c *Channel) Profile() agent.Profile {
	return agent.Profile{ID: c.cfg.AgentID, Description: c.cfg.Description,
		Capabilities: slices.Clone(c.cfg.Capabilities), Roles: slices.Clone(c.cfg.Roles)}
}

// Backend returns the store the channel uses (nil before Start when the
// channel opens its own).
func (c *Channel) Backend() *store.Store {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.backend
}

// SetJudge installs the agent's judgement on tasks (see Judge).
func (c *Channel) SetJudge(j Judge) {
	c.mu.Lock()
	c.judge = j
	c.mu.Unlock()
}

// Start opens the store and the agent's inbox (failing if another process
// runs this agent), registers the card and starts receiving and
// heartbeating.
func (c *Channel) Start(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		return errors.New("mailbox channel already running")
	}
	if c.backend == nil {
		sc := c.cfg.StoreConfig()
		sc.Logger, sc.Observer = c.Logger(), c.storeObserver()
		be, err := store.Open(c.cfg.Backend, sc)
		if err != nil {
			return fmt.Errorf("open mailbox store: %w", err)
		}
		c.backend, c.ownsBackend = be, true
	}
	inbox, err := c.backend.OpenInbox(ctx, c.cfg.AgentID)
	if err != nil {
		c.closeOwnedBackend()
		return fmt.Errorf("open inbox of %q: %w", c.cfg.AgentID, err)
	}
	sent, err := loadState(ctx, c, ledger.DelegatedKey, ledger.LoadDelegated)
	var owed *ledger.Replies
	if err == nil {
		owed, err = loadState(ctx, c, ledger.RepliesKey, ledger.LoadReplies)
	}
	if err == nil {
		err = c.register(ctx)
	}
	if err != nil {
		inbox.Close()
		c.closeOwnedBackend()
		return err
	}
	c.inbox, c.sent, c.replies = inbox, sent, owed
	c.waiting.resume(sent.List())
	c.tidyOwnApprovals(ctx)
	c.guard = limits.New(c.cfg.Limits, c.cfg.AgentID, c.clk, c.backend, c.Logger())
	runCtx, cancel := context.WithCancel(context.Background())
	c.cancel, c.running = cancel, true
	c.startReceiving(runCtx)
	// The tickers start now, so that a test's clock moved after Start
	// returns moves them.
	beat := c.clk.NewTicker(seconds(c.cfg.HeartbeatInterval))
	prune := c.clk.NewTicker(seconds(c.cfg.PruneInterval))
	stale := c.clk.NewTicker(seconds(c.cfg.OfflineAfter))
	c.wg.Go(func() { c.heartbeatLoop(runCtx, beat) })
	c.wg.Go(func() { c.staleLoop(runCtx, stale) })
	c.wg.Go(func() { c.delegatedDeadlines(runCtx, sent) })
	lost := c.clk.NewTicker(seconds(c.cfg.OfflineAfter) / 2)
	c.wg.Go(func() { c.acceptDeadlines(runCtx, sent) })
	c.wg.Go(func() { c.lostWorkers(runCtx, sent, lost) })
	c.wg.Go(func() { c.replyDeadlines(runCtx, owed) })
	c.wg.Go(func() { c.pruneLoop(runCtx, prune) })
	c.Logger().Info("mailbox channel started", "agent", c.cfg.AgentID)
	return nil
}

// Stop stops receiving, marks the agent offline and releases the inbox.
// Tasks still in progress stay claimed and come back on the next start.
func (c *Channel) Stop(ctx context.Context) error {
	c.mu.Lock()
	if !c.running {
		c.mu.Unlock()
		return nil
	}
	c.running = false
	c.cancel()
	c.mu.Unlock()

	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("stop mailbox channel: %w", ctx.Err())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.active.Clear()
	errs := []error{c.markOffline(ctx), c.inbox.Close()}
	c.closeOwnedBackend()
	return errors.Join(errs...)
}

// state returns what a send needs, or ErrNotRunning.
func (c *Channel) state() (*store.Store, *ledger.Delegated, *ledger.Replies, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running {
		return nil, nil, nil, ErrNotRunning
	}
	return c.backend, c.sent, c.replies, nil
}

func (c *Channel) closeOwnedBackend() {
	if c.ownsBackend && c.backend != nil {
		if err := c.backend.Close(); err != nil {
			c.Logger().Warn("close mailbox store", "err", err)
		}
		c.backend, c.ownsBackend = nil, false
	}
}
