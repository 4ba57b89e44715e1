package bridge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Defaults of Config.
const (
	// DefaultInterval is how often the cards are compared.
	DefaultInterval = time.Second
	// DefaultOfflineAfter is the presence limit (channels.mailbox.offlineAfter's default).
	DefaultOfflineAfter = 30 * time.Second
	// DefaultTimeout bounds one round of the cards and one reading of a
	// destination's messages.
	DefaultTimeout = 10 * time.Second
	// MaxBridges is how many bridges a message may cross: one that crossed
	// as many is set aside instead of forwarded again.
	MaxBridges = 8
)

// Side is one of the two stores a bridge joins.
type Side struct {
	// Name names the store in logs and reasons ("folder", "nats").
	Name string
	// Store is the open store; the bridge does not close it.
	Store *store.Store
}

// Config is what a Bridge runs with.
type Config struct {
	// ID names the bridge: it is the bridged_by of the cards it copies and
	// what it adds to a message's bridges. Two bridges must have different
	// ids; it must be a valid agent id (envelope.ValidateAgentID).
	ID string
	// A and B are the stores joined.
	A, B Side
	// Interval is how often the cards are compared (DefaultInterval when 0),
	// and how long an inbox another process holds is waited for before
	// trying again.
	Interval time.Duration
	// Timeout bounds one round of the cards, the opening of an inbox and
	// one reading of the messages a destination holds (DefaultTimeout
	// when 0): a server that
	// went away mid-call fails the call, which is tried again, instead of
	// holding the bridge until it is back.
	Timeout time.Duration
	// OfflineAfter is how old a heartbeat may be before its agent counts
	// as offline (DefaultOfflineAfter when 0).
	OfflineAfter time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// Logger receives the bridge's logs (nil discards them).
	Logger *slog.Logger
}

// setDefaults fills in the zero fields.
func (c *Config) setDefaults() {
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.OfflineAfter <= 0 {
		c.OfflineAfter = DefaultOfflineAfter
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Validate checks the config.
func (c *Config) Validate() error {
	if err := envelope.ValidateAgentID(c.ID); err != nil {
		return fmt.Errorf("bridge id: %w", err)
	}
	if c.A.Store == nil || c.B.Store == nil {
		return errors.New("bridge: both stores are needed")
	}
	if c.A.Name == "" || c.B.Name == "" || c.A.Name == c.B.Name {
		return fmt.Errorf("bridge: the two sides need two different names, got %q and %q", c.A.Name, c.B.Name)
	}
	return nil
}

// Bridge mirrors cards and messages between two stores (see the package
// comment). Make one with New and run it with Run.
type Bridge struct {
	cfg   Config
	log   *slog.Logger
	stats counts

	mu         sync.Mutex
	forwarders map[route]*forwarder // running, by the inbox they read
	conflicts  map[string]bool      // agents native on both sides, warned of
	wg         sync.WaitGroup
}

// route is one inbox a bridge reads: agent's, on side from, whose
// messages go to side to.
type route struct {
	agent    string
	from, to int // 0: A, 1: B
}

// New returns a bridge for cfg.
func New(cfg Config) (*Bridge, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Bridge{cfg: cfg, log: cfg.Logger.With("bridge", cfg.ID),
		forwarders: map[route]*forwarder{}, conflicts: map[string]bool{}}, nil
}

// side returns side i (0: A, 1: B).
func (b *Bridge) side(i int) Side {
	if i == 0 {
		return b.cfg.A
	}
	return b.cfg.B
}

// Run mirrors until ctx ends, then stops its forwarders (a message being
// forwarded stays in its source and is forwarded on the next run) and
// returns nil. Errors of the stores are logged and retried, never returned:
// a bridge outlives a server restart or a bad file.
func (b *Bridge) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		b.wg.Wait()
	}()
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		b.syncCards(ctx)
		t.Reset(b.cfg.Interval)
	}
}

// counts are the bridge's counts since it started (see Counts).
type counts struct {
	mu                                      sync.Mutex
	forwarded, duplicates, setAside, copied int
}

// Counts returns the counts: messages forwarded, redelivered messages the
// destination held already (acknowledged without a second copy), messages
// set aside, and artifacts copied.
func (b *Bridge) Counts() (forwarded, duplicates, setAside, artifacts int) {
	b.stats.mu.Lock()
	defer b.stats.mu.Unlock()
	return b.stats.forwarded, b.stats.duplicates, b.stats.setAside, b.stats.copied
}

// count adds to one of the counts.
func (b *Bridge) count(f func(*counts)) {
	b.stats.mu.Lock()
	f(&b.stats)
	b.stats.mu.Unlock()
}

// wait waits d or until ctx ends; it reports whether ctx is still alive.
func wait(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
