package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/switchboard-dev/switchboard/a2a/internal/convert"
	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// CallbackChannel is the channel named in the callback of the mailbox
// tasks the gateway sends; the chat id is the A2A task's id.
const CallbackChannel = "a2a"

// Config is what the server needs of channels.a2a.
type Config struct {
	// Agents are the fronted agents; "*" fronts every registered agent.
	Agents []string
	// Default is the agent whose card is served at the root
	// (/.well-known/agent-card.json); "" serves none there.
	Default string
	// PublicURL is the base of the URLs the cards name
	// (http://host:port, no trailing slash).
	PublicURL string
	// Token, when set, is the bearer token every request but the cards'
	// must carry; the cards say so.
	Token string
	// TaskTimeout is the deadline of a mailbox task from an A2A client.
	TaskTimeout time.Duration
	// ClientApproves lets the A2A client answer the approval its task
	// waits for.
	ClientApproves bool
	// KeepTasks is how many ended tasks are kept (older ones are deleted).
	KeepTasks int
	// Budget bounds a task from an A2A client (nil: no bound); a
	// switchboard client's hop may ask for less, never more.
	Budget *envelope.Budget
	// ApprovalPoll is how often the approval book is looked at while
	// tasks are open.
	ApprovalPoll time.Duration
	// Version is the version the cards name.
	Version string
}

// Options are what New needs besides Config.
type Options struct {
	// Channel is the gateway's mailbox channel, not started yet; Bus is
	// the bus it publishes to, which the server consumes.
	Channel *mailbox.Channel
	Bus     *bus.Bus
	// Store is the mailbox store the channel uses.
	Store  *store.Store
	Logger *slog.Logger
	Clock  clock.Clock
}

// Server is the A2A server of a gateway. Create it with New, Start it,
// serve Handler, and Stop it.
type Server struct {
	cfg   Config
	ch    *mailbox.Channel
	bus   *bus.Bus
	st    *store.Store
	book  agent.ApprovalBook
	log   *slog.Logger
	clk   clock.Clock
	tasks *tasks
	feeds *feeds
	acks  *acks

	mu        sync.Mutex
	fronts    map[string]*front
	announced map[a2a.TaskID]string // what watchApprovals pushed last, by task
	run       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
}

// New returns a server over the gateway's mailbox channel.
func New(cfg Config, o Options) (*Server, error) {
	if o.Channel == nil || o.Bus == nil || o.Store == nil {
		return nil, errors.New("a2a server: Channel, Bus and Store are required")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.ApprovalPoll <= 0 {
		cfg.ApprovalPoll = time.Second
	}
	s := &Server{cfg: cfg, ch: o.Channel, bus: o.Bus, st: o.Store, book: o.Store.Approvals(), log: o.Logger,
		clk: clock.Or(o.Clock), acks: newAcks(), fronts: map[string]*front{}, announced: map[a2a.TaskID]string{}}
	s.feeds = newFeeds(s.resume)
	s.ch.SetJudge(func(context.Context, bus.InboundMessage) (bool, string) {
		return false, "the A2A gateway takes no tasks; give them to the agents it fronts"
	})
	return s, nil
}

// Start loads the gateway's tasks (before its mailbox channel starts and
// hands over the updates that wait), starts the channel, takes its
// messages, and resumes every open task.
func (s *Server) Start(ctx context.Context) error {
	t, err := loadTasks(ctx, s.st, s.ch.AgentID(), s.cfg.KeepTasks, s.log, s.clk.Now)
	if err != nil {
		return err
	}
	t.saved = s.acks.fire
	s.tasks = t
	if err := s.ch.Start(ctx); err != nil {
		return err
	}
	s.run, s.cancel = context.WithCancel(context.Background())
	s.wg.Go(func() { s.dispatch(s.run) })
	s.wg.Go(func() { s.watchApprovals(s.run) })
	for _, r := range s.tasks.open() {
		if r.Task.Status.State != a2a.TaskStateInputRequired {
			s.feeds.ensure(r.Task.ID)
		}
	}
	return nil
}

// Stop stops taking messages and the executions, then the channel. What
// was not applied stays claimed in the gateway's inbox for its next start.
func (s *Server) Stop(ctx context.Context) error {
	if s.cancel == nil {
		return nil
	}
	s.cancel()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("stop the a2a server: %w", ctx.Err())
	}
	return s.ch.Stop(ctx)
}

// dispatch takes the gateway's mailbox messages until ctx ends: the
// updates of its tasks go to their feeds; anything else is acknowledged
// and logged (the gateway answers no one).
func (s *Server) dispatch(ctx context.Context) {
	for {
		m, err := s.bus.ConsumeInbound(ctx)
		if err != nil {
			return
		}
		s.route(m)
	}
}

// route sends one message of the gateway's inbox where it belongs.
func (s *Server) route(m bus.InboundMessage) {
	mt, ok := meta.Of(m.Metadata)
	if !ok || mt.Notice != "" {
		m.Done()
		return
	}
	id, ours := a2aTaskOf(mt)
	r, known := s.tasks.get(id)
	switch {
	case !ours:
		s.log.Info("message to the a2a gateway ignored: it belongs to no task of an A2A client", "from", mt.From, "type", mt.Type)
		m.Done()
		return
	case !known || r.Task.Status.State.Terminal():
		m.Done()
		s.feeds.drop(id)
		return
	case mt.From != r.Agent:
		s.log.Warn("message about an a2a task from another agent than its own ignored", "task", id, "from", mt.From, "agent", r.Agent)
		m.Done()
		return
	}
	u := update{kind: kindState, parts: mt.Parts, from: mt.From, id: mt.MessageID, done: m.Done}
	switch {
	case mt.Type == envelope.TypeTaskUpdate && mt.Task != nil:
		u.state, u.reason = mt.Task.State, mt.Task.Reason
	case mt.ExpectsReply:
		u.kind = kindQuestion
	default:
		u.kind = kindNote
	}
	s.feeds.push(id, u)
}

// resume starts an execution that resumes task id: the task's first
// message again, which the SDK finds in the task's history and does not
// add twice.
func (s *Server) resume(id a2a.TaskID) {
	r, ok := s.tasks.get(id)
	if !ok || r.Task.Status.State.Terminal() || s.run == nil || s.run.Err() != nil {
		s.feeds.resumeFailed(id)
		s.feeds.drop(id)
		return
	}
	i := slices.IndexFunc(r.Task.History, func(m *a2a.Message) bool { return m != nil && m.ID == r.Mailbox.Original })
	fr, err := s.front(r.Agent, false)
	if i < 0 || err != nil {
		s.log.Error("a2a task cannot be resumed", "task", id, "agent", r.Agent, "err", err)
		s.feeds.resumeFailed(id)
		return
	}
	msg := *r.Task.History[i]
	msg.TaskID, msg.ContextID = id, r.Task.ContextID
	s.wg.Go(func() {
		for _, err := range fr.handler.SendStreamingMessage(s.run, &a2a.SendMessageRequest{Message: &msg}) {
			if err != nil {
				if s.run.Err() == nil {
					s.log.Info("a2a task not resumed", "task", id, "err", err)
				}
				s.feeds.resumeFailed(id)
				return
			}
		}
	})
}

// taskRequest is the mailbox task of an A2A task: from the gateway to
// agent, with the client's text and data, a deadline, the budget (the
// gateway's, or less when a switchboard client's hop asks for less), and,
// when the client is a switchboard agent, its place in its task tree.
func (s *Server) taskRequest(agent string, ec *a2asrv.ExecutorContext, first *a2a.Message) route.Request {
	req := route.Request{To: agent, Type: envelope.TypeTask, TaskID: MailboxPrefix + string(ec.TaskID),
		Text: convert.MessageText(first), Parts: dataParts(first.Parts),
		Callback: &envelope.Callback{Channel: CallbackChannel, ChatID: string(ec.TaskID)},
		Budget:   s.cfg.Budget}
	if s.cfg.TaskTimeout > 0 {
		req.Deadline = s.clk.Now().Add(s.cfg.TaskTimeout)
	}
	hop, ok := convert.HopOf(ec.Metadata)
	if !ok {
		hop, ok = convert.HopOf(first.Metadata)
	}
	if ok {
		if len(hop.TaskPath) > 0 {
			req.Tree = &meta.Tree{Path: hop.TaskPath}
		}
		req.Budget = smaller(req.Budget, hop.Budget)
	}
	return req
}

// smaller is the tighter of two budgets, field by field (nil or zero:
// no bound).
func smaller(a, b *envelope.Budget) *envelope.Budget {
	if !b.Bounded() {
		return a
	}
	if !a.Bounded() {
		return b
	}
	out := *a
	if b.Tokens > 0 && (out.Tokens == 0 || b.Tokens < out.Tokens) {
		out.Tokens = b.Tokens
	}
	if b.Cost > 0 && (out.Cost == 0 || b.Cost < out.Cost) {
		out.Cost = b.Cost
	}
	return &out
}

// acks acknowledges mailbox messages once the events they became are
// stored: the task store tells it of every event it stored.
type acks struct {
	mu sync.Mutex
	m  map[a2a.Event]func()
}

func newAcks() *acks { return &acks{m: map[a2a.Event]func(){}} }

// on calls done once ev is stored.
func (a *acks) on(ev a2a.Event, done func()) {
	a.mu.Lock()
	a.m[ev] = done
	a.mu.Unlock()
}

// forget drops what waits for ev (it will not be stored).
func (a *acks) forget(ev a2a.Event) {
	a.mu.Lock()
	delete(a.m, ev)
	a.mu.Unlock()
}

// fire is called with each stored event.
func (a *acks) fire(ev a2a.Event) {
	a.mu.Lock()
	done, ok := a.m[ev]
	delete(a.m, ev)
	a.mu.Unlock()
	if ok {
		done()
	}
}
