package limits

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// Guard applies the limits of one agent. Create it with New; it is safe
// for concurrent use.
type Guard struct {
	cfg    Config
	self   string
	clk    clock.Clock
	st     store.StateStore // nil: breakers are not saved
	log    *slog.Logger
	edge   *buckets
	agent  *buckets
	sender *buckets
	brk    *breakers

	sendLimited, agentLimited, receiveLimited, breakerTrips, breakerRefusals atomic.Int64
}

// Stats counts what the guard refused since it was made.
type Stats struct {
	// SendLimited counts sends refused by perEdge or perAgent.
	SendLimited int64
	// AgentLimited counts those of SendLimited that perAgent refused (the
	// rest perEdge did).
	AgentLimited int64
	// ReceiveLimited counts messages set aside by perSender.
	ReceiveLimited int64
	// BreakerTrips counts breakers that opened.
	BreakerTrips int64
	// BreakerRefusals counts sends refused by an open breaker.
	BreakerRefusals int64
}

// New returns the guard of agent self. st (may be nil) keeps the state
// of its breakers for other processes to read (ReadBreakers); log (nil:
// discard) gets a warning when a breaker opens.
func New(cfg Config, self string, clk clock.Clock, st store.StateStore, log *slog.Logger) *Guard {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Guard{cfg: cfg, self: self, clk: clock.Or(clk), st: st, log: log,
		edge: newBuckets(cfg.PerEdge), agent: newBuckets(cfg.PerAgent), sender: newBuckets(cfg.PerSender),
		brk: newBreakers(cfg.Breaker)}
}

// Config returns the guard's settings.
func (g *Guard) Config() Config { return g.cfg }

// Stats returns the guard's counters.
func (g *Guard) Stats() Stats {
	return Stats{SendLimited: g.sendLimited.Load(), AgentLimited: g.agentLimited.Load(), ReceiveLimited: g.receiveLimited.Load(),
		BreakerTrips: g.breakerTrips.Load(), BreakerRefusals: g.breakerRefusals.Load()}
}

// Counted reports whether messages of type t count against the rate
// limits: a task_update answers a task that was counted itself, and
// refusing it would leave its task without an end.
func Counted(t envelope.Type) bool { return t != envelope.TypeTaskUpdate }

// AllowSend decides whether this agent may send a message of type t to
// `to` now: not while the recipient's breaker is open (any type but a
// task_update), not over perEdge or perAgent (counted types). A refusal
// is a *route.LimitError saying how long to wait; an allowed send takes
// its tokens.
func (g *Guard) AllowSend(to string, t envelope.Type) error {
	if !Counted(t) {
		return nil
	}
	now := g.clk.Now()
	if until, why := g.brk.open(to, now); !until.IsZero() {
		g.breakerRefusals.Add(1)
		return &route.LimitError{Kind: route.ErrBreakerOpen, From: g.self, To: to, RetryAfter: until.Sub(now),
			Rule: fmt.Sprintf("%s (channels.mailbox.limits.breaker)", why)}
	}
	edge, wait := g.edge.reserve(to, now)
	if wait > 0 {
		g.sendLimited.Add(1)
		return &route.LimitError{Kind: route.ErrRateLimited, From: g.self, To: to, RetryAfter: wait,
			Rule: fmt.Sprintf("over %s to one agent (channels.mailbox.limits.perEdge)", g.cfg.PerEdge)}
	}
	if _, wait := g.agent.reserve("", now); wait > 0 {
		if edge != nil {
			edge.CancelAt(now)
		}
		g.agentLimited.Add(1)
		g.sendLimited.Add(1)
		return &route.LimitError{Kind: route.ErrRateLimited, From: g.self, To: to, RetryAfter: wait,
			Rule: fmt.Sprintf("over %s in all (channels.mailbox.limits.perAgent)", g.cfg.PerAgent)}
	}
	return nil
}

// AllowReceive decides whether message m is taken, or set aside: it
// returns the reason to set it aside, "" to take it. Only perSender limits
// receipt, so a flooding sender never costs another sender a message.
// The bucket runs on the times the sender wrote its messages (no later
// than now), not on when they are read: a backlog sent at a calm pace
// while this agent was down is no flood.
func (g *Guard) AllowReceive(m *envelope.Message) string {
	if !Counted(m.Type) {
		return ""
	}
	from, now := m.From, g.clk.Now()
	at := m.Timestamp.Time
	if at.IsZero() || at.After(now) {
		at = now
	}
	if _, wait := g.sender.reserve(from, at); wait > 0 {
		g.receiveLimited.Add(1)
		return fmt.Sprintf("rate limit: sender %s over %s (channels.mailbox.limits.perSender); it may send again in %s",
			from, g.cfg.PerSender, route.RoundWait(wait))
	}
	return ""
}

// Failure counts a failed delivery to `to`, or a task it rejected (why
// says which), toward its breaker; when that opens the breaker, the state
// is saved for other processes and a warning logged.
func (g *Guard) Failure(ctx context.Context, to, why string) {
	now := g.clk.Now()
	if !g.brk.fail(to, why, now) {
		return
	}
	g.breakerTrips.Add(1)
	until, reason := g.brk.open(to, now)
	g.log.Warn("circuit breaker open: sends to this agent fail fast", "to", to, "until", until, "reason", reason)
	g.save(ctx)
}

// Open returns the breakers open now, by recipient.
func (g *Guard) Open() map[string]Open { return g.brk.snapshot(g.clk.Now()) }
