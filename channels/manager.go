package channels

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/config"
)

// ManagerConfig tunes a Manager. Zero values take the defaults below.
type ManagerConfig struct {
	// SendAttempts is how many times a temporary send error is tried in all
	// (default 4).
	SendAttempts int
	// RetryBackoff is the wait before the first retry; it doubles up to
	// MaxBackoff (defaults 100ms and 5s), each wait shortened by a random
	// part of up to half (package internal/backoff). A wait the platform
	// asked for (RetryAfter) is honoured up to a minute (see Retry).
	RetryBackoff time.Duration
	MaxBackoff   time.Duration
	// StopTimeout bounds Stop when its context has no deadline (default 10s).
	StopTimeout time.Duration
	// QueueSize is each channel's outbound queue (default 64).
	QueueSize int
	// OnDispatchError is told of every outbound message that could not be
	// delivered. The Manager also logs it; nothing is dropped silently.
	OnDispatchError func(*DispatchError)
	// Clock is passed to the channels it builds (Deps.Clock) and times
	// the waits between a send's retries; nil: the real clock.
	Clock clock.Clock
	// Logger receives the Manager's logs; nil discards.
	Logger *slog.Logger
}

// retry is the policy of the Manager's sends.
func (c *ManagerConfig) retry() Retry {
	return Retry{Attempts: c.SendAttempts, Backoff: c.RetryBackoff, MaxBackoff: c.MaxBackoff, Clock: c.Clock}
}

func (c *ManagerConfig) setDefaults() {
	if c.SendAttempts <= 0 {
		c.SendAttempts = 4
	}
	if c.RetryBackoff <= 0 {
		c.RetryBackoff = 100 * time.Millisecond
	}
	if c.MaxBackoff <= 0 {
		c.MaxBackoff = 5 * time.Second
	}
	if c.StopTimeout <= 0 {
		c.StopTimeout = 10 * time.Second
	}
	if c.QueueSize <= 0 {
		c.QueueSize = 64
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
}

// Manager owns a set of channels: it starts them, dispatches outbound
// messages from the bus to them, and stops them.
type Manager struct {
	bus *bus.Bus
	cfg ManagerConfig

	mu       sync.Mutex
	channels map[string]*managed
	order    []string
	skipped  []string // enabled sections of channel types not in the build
	cancel   context.CancelFunc
	wg       sync.WaitGroup
	started  bool

	// outstanding counts the outbound messages taken from the bus and not
	// yet sent or reported; dispatched is closed when the dispatcher ended.
	outstanding sync.WaitGroup
	dispatched  chan struct{}
}

// NewManager returns a Manager over b.
func NewManager(b *bus.Bus, cfg ManagerConfig) *Manager {
	cfg.setDefaults()
	return &Manager{bus: b, cfg: cfg, channels: map[string]*managed{}}
}

// Add registers a channel built by the caller. Names must be unique, and
// channels must be added before Start.
func (m *Manager) Add(ch Channel) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return fmt.Errorf("add channel %q: manager already started", ch.Name())
	}
	if _, dup := m.channels[ch.Name()]; dup {
		return fmt.Errorf("add channel %q: a channel of that name exists", ch.Name())
	}
	m.channels[ch.Name()] = &managed{ch: ch, queue: make(chan bus.OutboundMessage, m.cfg.QueueSize)}
	m.order = append(m.order, ch.Name())
	return nil
}

// Build creates every enabled channel of cfg with reg's factories (the
// section name is the channel type) and adds it. Disabled sections are
// skipped. An enabled section of a channel type that reg lacks but nanobot
// has (telegram, slack, ...) is skipped with one warning naming them all
// (Skipped lists them); any other unknown type, or a bad section, is an
// error naming the key. What became of each section is recorded in
// cfg.Report.
func (m *Manager) Build(reg *Registry, cfg *config.Config) error {
	names := make([]string, 0, len(cfg.Channels))
	for name := range cfg.Channels {
		names = append(names, name)
	}
	slices.Sort(names)
	var skipped []string
	for _, name := range names {
		section := cfg.Channels[name]
		factory, err := reg.Lookup(name)
		if err != nil {
			if err := notBuilt(reg, section, name, err); err != nil {
				return err
			}
			if section.Enabled() {
				skipped = append(skipped, name)
			}
			continue
		}
		if !section.Enabled() {
			continue
		}
		ch, err := factory(section, Deps{Bus: m.bus, Logger: m.cfg.Logger, Config: cfg, Clock: m.cfg.Clock})
		if err != nil {
			return err
		}
		if err := m.Add(ch); err != nil {
			return err
		}
	}
	m.skip(skipped, reg)
	return nil
}

// Channel returns the named channel.
func (m *Manager) Channel(name string) (Channel, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	mc, ok := m.channels[name]
	if !ok {
		return nil, false
	}
	return mc.ch, true
}

// Names returns the channels' names in the order they were added.
func (m *Manager) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.order)
}

// Start starts every channel in order and then the outbound dispatcher. A
// channel that restricts senders with an empty allowFrom list is refused
// before anything starts. If one channel fails to start, those already
// started are stopped again and the error is returned.
func (m *Manager) Start(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return errors.New("manager already started")
	}
	for _, name := range m.order {
		if al, ok := m.channels[name].ch.(AllowLister); ok && len(al.AllowFrom()) == 0 {
			return errEmptyAllowFrom(name)
		}
	}
	for i, name := range m.order {
		mc := m.channels[name]
		if err := mc.ch.Start(ctx); err != nil {
			m.stopChannels(m.order[:i])
			return fmt.Errorf("start channel %q: %w", name, err)
		}
		mc.setRunning(true)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	m.started = true
	for _, name := range m.order {
		mc := m.channels[name]
		m.wg.Go(func() { m.work(runCtx, mc) })
	}
	dispatched := make(chan struct{})
	m.dispatched = dispatched
	m.wg.Go(func() {
		defer close(dispatched)
		m.dispatch(runCtx)
	})
	return nil
}

// stopChannels stops the named channels with the default timeout; used to
// undo a partial start.
func (m *Manager) stopChannels(names []string) {
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.StopTimeout)
	defer cancel()
	for _, name := range names {
		mc := m.channels[name]
		mc.setRunning(false)
		if err := mc.ch.Stop(ctx); err != nil {
			m.cfg.Logger.Error("stop channel after failed start", "channel", name, "err", err)
		}
	}
}
