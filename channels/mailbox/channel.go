package mailbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/budget"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/channels/mailbox/tools"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/mailbox/keys"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// This file is the Channel itself: what it is made of, New and Factory,
// what it offers the agent loop besides its hooks and approval book (its
// identity, the judge, the tools), Start and Stop with StopReceiving, and
// the agent's state records in the store.

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
	// Workspace is the agent's workspace: files it attaches by a relative
	// path are read from it, artifacts it receives are fetched into it
	// (see Channel.Workspace).
	Workspace string
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
	workspace   string

	received *recentMessages
	posted   *recentMessages // plain messages sent lately, for their exchange counts (stalemate.go)
	active   *ledger.Active  // tasks this agent works on

	waiting *waiting // subtasks whose results the tasks this agent works on wait for
	// canceled are the tasks canceled while this process held them.
	canceled *canceledTasks
	drain    *drainState      // see drain.go
	poisoned chan store.Event // set aside after maxDeliver, to be told (setaside.go)
	escPoke  chan struct{}    // has the escalation loop look now (escalation_act.go)
	// published counts what the channel put on the bus (recovered.go).
	published atomic.Uint64

	keeperOnce sync.Once
	kept       atomic.Pointer[budget.Keeper] // the budget keeper, once made (see Hooks)

	// key signs what the agent sends, checker judges who sent what
	// arrives (signing.go); both made by Start.
	key          *keys.Key
	keySignature string
	checker      *keys.Checker

	mu      sync.Mutex
	judge   Judge
	budgets Budgets           // see SetBudgets
	sent    *ledger.Delegated // tasks this agent delegated
	replies *ledger.Replies   // requests owed a reply, both ways
	unsent  *ledger.Unsent    // answers the store did not take yet (unsent.go)
	after   afterSent         // what waits for them
	inbox   *store.Inbox
	guard   *limits.Guard // rate limits and breakers, made by Start
	intake  intake        // the receive loop, which StopReceiving ends first
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	running bool
}

var (
	_ channels.Channel        = (*Channel)(nil)
	_ channels.AllowLister    = (*Channel)(nil)
	_ channels.ReceiveStopper = (*Channel)(nil)
)

// Errors of the mailbox channel, for errors.Is. The loop and addressing
// errors of a send (ErrLoop, ErrTTLExhausted, ErrHopLimit, ErrNoAgent, ...)
// are those of package route.
var (
	// ErrTaskNotActive is returned when answering a task this agent is not
	// (or no longer) working on, for example one its deadline already failed.
	ErrTaskNotActive = errors.New("task not active")
	// ErrNotRunning is returned by sends on a channel that is not started.
	ErrNotRunning = errors.New("mailbox channel not running")
	// ErrReplyOwed refuses to archive a request that was not answered
	// (view.ErrReplyOwed: the operator's archive refuses with it too).
	ErrReplyOwed = view.ErrReplyOwed
	// ErrNotHeld is returned by Archive for a message this agent does not
	// hold: never received here, or archived already.
	ErrNotHeld = errors.New("message not held")
)

// stopTimeout bounds what the channel does on its own (a task that
// expires) when nobody waits for it.
const stopTimeout = 10 * time.Second

// New returns a mailbox channel for cfg (which must pass Validate) that
// publishes to b.
func New(cfg Config, b *bus.Bus, opts Options) (*Channel, error) {
	if err := cfg.Validate("channels.mailbox"); err != nil {
		return nil, err
	}
	clk := clock.Or(opts.Clock)
	return &Channel{
		Base:      channels.NewBase(ChannelName, cfg.AllowFrom, b, opts.Logger),
		cfg:       cfg,
		backend:   opts.Backend,
		observer:  opts.Observer,
		clk:       clk,
		workspace: opts.Workspace,
		received:  newRecentMessages(4096),
		posted:    newRecentMessages(1024),
		active:    ledger.NewActive(clk),
		waiting:   newWaiting(),
		canceled:  newCanceledTasks(256),
		drain:     newDrainState(),
		poisoned:  make(chan store.Event, poisonQueue),
		escPoke:   make(chan struct{}, 1),
	}, nil
}

func init() { channels.Register(ChannelName, Factory) }

// Factory builds the mailbox channel from its config section: the defaults
// of DefaultConfig, overridden by the section, then validated.
func Factory(section config.Section, deps channels.Deps) (channels.Channel, error) {
	cfg, err := DecodeConfig(section)
	if err != nil {
		return nil, err
	}
	ws, _ := deps.Workspace() // without one, received files are not fetched
	return New(cfg, deps.Bus, Options{Logger: deps.Logger, Clock: deps.Clock, Workspace: ws})
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

// SetJudge installs the agent's judgement on tasks (see Judge).
func (c *Channel) SetJudge(j Judge) {
	c.mu.Lock()
	c.judge = j
	c.mu.Unlock()
}

// The channel is the mailbox the tools use.
var _ tools.Mailbox = (*Channel)(nil)

// Tools returns the mailbox tools the agent loop offers its model
// (agentloop.ToolChannel): list_agents, delegate_task, send_message and
// reply of package channels/mailbox/tools, called as a model calls them:
// they write to registered agents only, list the agents online, and a
// task delegated in a turn carries that turn's budget (see Hooks).
func (c *Channel) Tools() []agent.Tool {
	return tools.Loop(tools.Caller{Mailbox: c, KnownOnly: true, OnlineOnly: true, Budget: c.keeper().Hand, Now: c.clk.Now})
}

// Backend returns the store the channel uses (nil before Start when the
// channel opens its own).
func (c *Channel) Backend() *store.Store {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.backend
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
	var unsent *ledger.Unsent
	if err == nil {
		unsent, err = loadState(ctx, c, ledger.UnsentKey, ledger.LoadUnsent)
	}
	if err == nil {
		err = c.startSigning(ctx)
	}
	if err == nil {
		err = c.register(ctx)
	}
	if err != nil {
		inbox.Close()
		c.closeOwnedBackend()
		return err
	}
	c.inbox, c.sent, c.replies, c.unsent = inbox, sent, owed, unsent
	c.waiting.resume(sent.List())
	c.tidyOwnApprovals(ctx)
	c.guard = limits.New(c.cfg.Limits, c.cfg.AgentID, c.clk, c.backend, c.Logger())
	runCtx, cancel := context.WithCancel(context.Background())
	c.cancel, c.running = cancel, true
	c.startReceiving(runCtx)
	c.wg.Go(func() { c.tellPoisoned(runCtx) })
	// The tickers start now, so that a test's clock moved after Start
	// returns moves them.
	beat := c.clk.NewTicker(seconds(c.cfg.HeartbeatInterval))
	prune := c.clk.NewTicker(seconds(c.cfg.PruneInterval))
	stale := c.clk.NewTicker(seconds(c.cfg.OfflineAfter))
	c.wg.Go(func() { c.heartbeatLoop(runCtx, beat) })
	c.wg.Go(func() { c.sendUnsent(runCtx) })
	c.wg.Go(func() { c.staleLoop(runCtx, stale) })
	c.wg.Go(func() { c.delegatedDeadlines(runCtx, sent) })
	lost := c.clk.NewTicker(seconds(c.cfg.OfflineAfter) / 2)
	c.wg.Go(func() { c.acceptDeadlines(runCtx, sent) })
	c.wg.Go(func() { c.lostWorkers(runCtx, sent, lost) })
	c.wg.Go(func() { c.replyDeadlines(runCtx, owed) })
	c.wg.Go(func() { c.pruneLoop(runCtx, prune) })
	nudges := c.listenDrainRequests(runCtx)
	c.markDrainStart(c.clk.Now())
	drainCheck := c.clk.NewTicker(seconds(c.cfg.HeartbeatInterval))
	c.wg.Go(func() { c.drainRequests(runCtx, drainCheck, nudges) })
	deadlockCheck := c.clk.NewTicker(seconds(c.cfg.OfflineAfter))
	c.wg.Go(func() { c.deadlockLoop(runCtx, deadlockCheck, sent) })
	if c.cfg.Escalation.Enabled() {
		escCheck := c.clk.NewTicker(escalationTick)
		c.wg.Go(func() { c.escalationLoop(runCtx, escCheck) })
	}
	c.Logger().Info("mailbox channel started", "agent", c.cfg.AgentID)
	return nil
}

// Stop stops receiving, marks the agent offline and releases the inbox.
// Tasks still in progress stay claimed and come back on the next start.
// Answers the store did not take (unsent.go) are kept for the next start,
// and Stop's error wraps ErrUnsent with how many.
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
	errs := []error{c.unsentReport(), c.markOffline(ctx), c.inbox.Close()}
	c.closeOwnedBackend()
	return errors.Join(errs...)
}

// intake is the receive loop's own stop, so that StopReceiving can end it
// while the rest of the channel runs on.
type intake struct {
	stop context.CancelFunc
	done chan struct{} // closed when the receive loop has returned
}

// startReceiving starts the receive loop under ctx. c.mu is held.
func (c *Channel) startReceiving(ctx context.Context) {
	ictx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	c.intake = intake{stop: stop, done: done}
	c.wg.Go(func() {
		defer close(done)
		c.receiveLoop(ctx, ictx)
	})
}

// StopReceiving ends the intake of messages (channels.ReceiveStopper): the
// receive loop finishes the message in hand (published, then acknowledged
// or held as a task in progress) and takes no other, so what arrives from
// now on stays pending in the inbox for the next start. Sending, task
// updates, heartbeats and the acknowledgement of the tasks and requests in
// progress go on until Stop. It returns once the loop has ended, or with
// ctx's error.
func (c *Channel) StopReceiving(ctx context.Context) error {
	c.mu.Lock()
	if !c.running {
		c.mu.Unlock()
		return nil
	}
	in := c.intake
	c.mu.Unlock()
	in.stop()
	select {
	case <-in.done:
		c.Logger().Info("mailbox stopped receiving", "agent", c.cfg.AgentID)
		return nil
	case <-ctx.Done():
		return fmt.Errorf("stop receiving: the message in hand was not handled in time: %w", ctx.Err())
	}
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

// corruptSuffix names the copy of a state record set aside because it
// did not decode: <key>-corrupt beside it (on the folder store
// <agent>/state/<key>-corrupt.json).
const corruptSuffix = "-corrupt"

// loadState reads one of the agent's state records with load. A record
// that does not decode (store.ErrCorruptState: edited by hand, or written
// by another program) must not keep the agent from receiving: it is set
// aside as <key>-corrupt, the agent starts with the record empty, and a
// warning says what is lost and where the copy is. Other errors (the store
// cannot be read) are returned.
func loadState[T any](ctx context.Context, c *Channel, key string,
	load func(context.Context, store.StateStore, string) (T, error)) (T, error) {
	v, err := load(ctx, c.backend, c.cfg.AgentID)
	if !errors.Is(err, store.ErrCorruptState) {
		return v, err
	}
	data, lerr := c.backend.LoadState(ctx, c.cfg.AgentID, key)
	if lerr == nil {
		lerr = c.backend.SaveState(ctx, c.cfg.AgentID, key+corruptSuffix, data)
	}
	if lerr == nil {
		lerr = c.backend.SaveState(ctx, c.cfg.AgentID, key, []byte("[]")) // both records are lists
	}
	if lerr != nil {
		return v, fmt.Errorf("%w (setting it aside failed: %w)", err, lerr)
	}
	c.Logger().Warn("state record corrupt: set aside, starting without it", "agent", c.cfg.AgentID,
		"key", key, "copy", key+corruptSuffix, "err", err)
	return load(ctx, c.backend, c.cfg.AgentID)
}

// LoadState returns this agent's record under key in the store (nil when
// there is none), beside the records the channel keeps itself; it fails
// with ErrNotRunning unless the channel runs.
func (c *Channel) LoadState(ctx context.Context, key string) ([]byte, error) {
	be, _, _, err := c.state()
	if err != nil {
		return nil, err
	}
	return be.LoadState(ctx, c.cfg.AgentID, key)
}

// SaveState replaces this agent's record under key in the store; it
// fails with ErrNotRunning unless the channel runs.
func (c *Channel) SaveState(ctx context.Context, key string, data []byte) error {
	be, _, _, err := c.state()
	if err != nil {
		return err
	}
	return be.SaveState(ctx, c.cfg.AgentID, key, data)
}
