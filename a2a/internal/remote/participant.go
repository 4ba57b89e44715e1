package remote

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// Config is one connected A2A agent (channels.a2a.connect.<name>).
type Config struct {
	// Name is its mailbox id.
	Name string
	// URL is its base URL, CardPath where its card is ("": the
	// well-known path), Token the bearer token it wants.
	URL, CardPath, Token string
	// Description and Capabilities replace the card's on the mailbox
	// card when set.
	Description  string
	Capabilities []string
	// Refresh is how often the card is fetched again.
	Refresh time.Duration
	// Poll polls tasks (GetTask every PollInterval) instead of streaming.
	Poll         bool
	PollInterval time.Duration
	// Transport is the preferred transport ("": the card's order).
	Transport string
}

// Options are what New needs besides the Config.
type Options struct {
	// Mailbox is the mailbox identity's settings (its id is Config.Name).
	Mailbox mailbox.Config
	// Store is the mailbox store, shared with the gateway.
	Store      *store.Store
	Logger     *slog.Logger
	Clock      clock.Clock
	HTTPClient *http.Client
}

// Participant is one connected A2A agent in the mailbox. Create it with
// New, Start and Stop it.
type Participant struct {
	cfg  Config
	mc   mailbox.Config
	st   *store.Store
	log  *slog.Logger
	clk  clock.Clock
	http *http.Client

	ch   *mailbox.Channel
	bus  *bus.Bus
	open *openTasks

	mu     sync.Mutex
	card   *a2a.AgentCard
	client *a2aclient.Client
	runs   map[string]*run // by mailbox task id
	asked  map[string]*run // by the id of the question asked
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns a participant; nothing runs until Start.
func New(cfg Config, o Options) (*Participant, error) {
	if o.Store == nil {
		return nil, errors.New("a2a participant: Options.Store is required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{} // streams last as long as their task: each call has its own deadline
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = 2 * time.Second
	}
	return &Participant{cfg: cfg, mc: o.Mailbox, st: o.Store, log: o.Logger, clk: clock.Or(o.Clock), http: o.HTTPClient,
		runs: map[string]*run{}, asked: map[string]*run{}}, nil
}

// Start fetches the card (or takes the one kept by an earlier run, when
// the agent cannot be reached), registers the mailbox agent with the
// card's description and skills, and starts taking its tasks.
func (p *Participant) Start(ctx context.Context) error {
	open, err := loadOpen(ctx, p.st, p.cfg.Name, p.clk.Now())
	if err != nil {
		return err
	}
	p.open = open
	card, err := p.resolve(ctx)
	keep := err == nil
	if err != nil {
		if card = p.cachedCard(ctx); card == nil {
			return fmt.Errorf("fetch the card: %w (and no card was kept by an earlier start)", err)
		}
		p.log.Warn("a2a card not fetched; using the one kept by an earlier start", "url", p.cfg.URL, "err", err)
	}
	if err := p.useCard(ctx, card, keep); err != nil {
		return err
	}
	mc := p.mc
	mc.Description, mc.Capabilities = p.identity(card)
	p.bus = bus.New(16)
	ch, err := mailbox.New(mc, p.bus, mailbox.Options{Backend: p.st, Logger: p.log, Clock: p.clk})
	if err != nil {
		return err
	}
	if err := ch.Start(ctx); err != nil {
		return err
	}
	p.ch = ch
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.wg.Go(func() { p.consume(p.ctx) })
	p.wg.Go(func() { p.refreshLoop(p.ctx) })
	p.log.Info("a2a agent connected", "url", p.cfg.URL, "card", card.Name, "capabilities", mc.Capabilities)
	return nil
}

// Stop stops the runs (their tasks stay claimed and are resumed at the
// next start) and the mailbox agent.
func (p *Participant) Stop(ctx context.Context) error {
	if p.cancel == nil {
		return nil
	}
	p.cancel()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("stop a2a participant %s: %w", p.cfg.Name, ctx.Err())
	}
	err := p.ch.Stop(ctx)
	p.mu.Lock()
	if p.client != nil {
		_ = p.client.Destroy()
	}
	p.mu.Unlock()
	return err
}

// consume takes the mailbox agent's messages until ctx ends.
func (p *Participant) consume(ctx context.Context) {
	for {
		m, err := p.bus.ConsumeInbound(ctx)
		if err != nil {
			return
		}
		p.handle(ctx, m)
	}
}

// handle acts on one message: a task starts a run (it stays claimed until
// the run ends it); a cancel of a task stops its run; an answer to a
// question a run asked goes to that run; anything else is acknowledged.
func (p *Participant) handle(ctx context.Context, m bus.InboundMessage) {
	mt, ok := meta.Of(m.Metadata)
	if !ok {
		m.Done()
		return
	}
	switch {
	case mt.IsTask() && mt.Task != nil:
		p.startRun(ctx, m, *mt)
	case mt.Type == envelope.TypeTaskUpdate && mt.Task != nil && mt.Task.State == envelope.StateCanceled:
		p.mu.Lock()
		r := p.runs[mt.Task.ID]
		p.mu.Unlock()
		if r != nil {
			r.cancel(mt.Task.Reason)
		}
		m.Done()
	case mt.ReplyTo != "":
		p.mu.Lock()
		r := p.asked[mt.ReplyTo]
		p.mu.Unlock()
		if r == nil {
			m.Done()
			return
		}
		r.answer(m, *mt)
	default:
		m.Done()
	}
}

// startRun starts the run of task mt.
func (p *Participant) startRun(ctx context.Context, m bus.InboundMessage, mt meta.Meta) {
	p.mu.Lock()
	if _, dup := p.runs[mt.Task.ID]; dup {
		p.mu.Unlock()
		return
	}
	r := newRun(p, m, mt)
	p.runs[mt.Task.ID] = r
	if s, ok := p.open.get(mt.Task.ID); ok && s.Question != "" {
		// asked before a restart: its answer, handed back after the task,
		// must find the run
		p.asked[s.Question] = r
	}
	p.mu.Unlock()
	p.wg.Go(func() {
		r.do(ctx)
		p.mu.Lock()
		delete(p.runs, mt.Task.ID)
		for q, x := range p.asked {
			if x == r {
				delete(p.asked, q)
			}
		}
		p.mu.Unlock()
	})
}

// current returns the client and card in use.
func (p *Participant) current() (*a2aclient.Client, *a2a.AgentCard) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.client, p.card
}
