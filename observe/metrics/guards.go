package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
)

// Guards are what the guard rails count, read at scrape time: each part
// keeps its own counters (limits.Guard, budget.Keeper, the loop's
// approvals), so nothing on their paths waits for Prometheus. Nil fields
// leave their metrics out.
type Guards struct {
	// Limits returns what the mailbox's rate limits and circuit breakers
	// refused (mailbox.Channel.LimitStats).
	Limits func() limits.Stats
	// OpenBreakers returns how many circuit breakers are open now.
	OpenBreakers func() int
	// Budget returns the provider calls the budget keeper refused.
	Budget func() mailbox.BudgetStats
	// Approvals returns the approvals asked and how they were decided.
	Approvals func() agentloop.ApprovalStats
}

// guards is the prometheus.Collector of the guard rails' metrics.
type guards struct {
	m   *Metrics
	src Guards

	tripped, opened, open, budget, asked, decided *prometheus.Desc
}

func newGuards(m *Metrics, src Guards) *guards {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append([]string{labelAgent}, labels...), nil)
	}
	return &guards{m: m, src: src,
		tripped: d("switchboard_limits_tripped_total",
			"Times a limit or circuit breaker stopped something, by limit: perEdge and perAgent (sends refused), perSender (messages set aside), breaker (sends refused by an open breaker).", "limit"),
		opened: d("switchboard_breakers_opened_total", "Circuit breakers that opened (a recipient failed or rejected work too often)."),
		open:   d("switchboard_breakers_open", "Circuit breakers open now."),
		budget: d("switchboard_budget_refusals_total",
			"Provider calls refused because a budget is spent, by budget: task (the task's tokens or cost) or daily (the agent's daily token cap).", "budget"),
		asked: d("switchboard_approvals_requested_total", "Approvals asked of a person, by kind: tool (a tool call) or task (a delegated task).", "kind"),
		decided: d("switchboard_approvals_decided_total",
			"Approvals decided, by kind and outcome: approved, denied (by a person), timed_out (no answer in time: denied), not_asked (could not be asked, or the agent stopped: denied).",
			"kind", labelOutcome),
	}
}

// Describe implements prometheus.Collector.
func (g *guards) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{g.tripped, g.opened, g.open, g.budget, g.asked, g.decided} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (g *guards) Collect(ch chan<- prometheus.Metric) {
	agent := g.m.agent
	emit := func(d *prometheus.Desc, t prometheus.ValueType, v int64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, t, float64(v), append([]string{agent}, labels...)...)
	}
	count := func(d *prometheus.Desc, v int64, labels ...string) { emit(d, prometheus.CounterValue, v, labels...) }
	if g.src.Limits != nil {
		s := g.src.Limits()
		count(g.tripped, s.SendLimited-s.AgentLimited, "perEdge")
		count(g.tripped, s.AgentLimited, "perAgent")
		count(g.tripped, s.ReceiveLimited, "perSender")
		count(g.tripped, s.BreakerRefusals, "breaker")
		count(g.opened, s.BreakerTrips)
	}
	if g.src.OpenBreakers != nil {
		emit(g.open, prometheus.GaugeValue, int64(g.src.OpenBreakers()))
	}
	if g.src.Budget != nil {
		s := g.src.Budget()
		count(g.budget, s.TaskRefusals, "task")
		count(g.budget, s.DailyRefusals, "daily")
	}
	if g.src.Approvals != nil {
		s := g.src.Approvals()
		for _, k := range []struct {
			kind string
			c    agentloop.ApprovalCounts
		}{{agentloop.ApprovalTool, s.Tool}, {agentloop.ApprovalTask, s.Task}} {
			count(g.asked, k.c.Asked, k.kind)
			count(g.decided, k.c.Approved, k.kind, "approved")
			count(g.decided, k.c.Denied, k.kind, "denied")
			count(g.decided, k.c.TimedOut, k.kind, "timed_out")
			count(g.decided, k.c.NotAsked, k.kind, "not_asked")
		}
	}
}

// CollectGuards adds the guard rails' metrics, read from src at scrape
// time, to m's registry. Call it once.
func (m *Metrics) CollectGuards(src Guards) {
	m.reg.MustRegister(newGuards(m, src))
}
