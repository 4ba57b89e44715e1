package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
)

// scrapeTimeout bounds what a scrape reads from the store.
const scrapeTimeout = 5 * time.Second

// Sources are what the gauges read at scrape time. Nil fields leave their
// gauges out.
type Sources struct {
	// Inbox reads the agent's inbox.
	Inbox func(ctx context.Context) (Inbox, bool, error)
	// Tasks returns the tasks the mailbox channel has in hand.
	Tasks func() mailbox.TaskCounts
	// Queues returns the length of the bus's inbound and outbound queues.
	Queues func() (inbound, outbound int)
}

// gauges is the prometheus.Collector of the scrape-time gauges.
type gauges struct {
	m   *Metrics
	src Sources

	depth, oldest, tasks, queue, inFlight, oldestTurn *prometheus.Desc
}

func newGauges(m *Metrics, src Sources) *gauges {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append([]string{labelAgent}, labels...), nil)
	}
	return &gauges{m: m, src: src,
		depth:  d("switchboard_mailbox_inbox_depth", "Messages waiting in the agent's inbox (on NATS: not acknowledged yet, pending or claimed)."),
		oldest: d("switchboard_mailbox_inbox_oldest_age_seconds", "Age of the oldest message waiting in the agent's inbox, from its timestamp (0 when none waits)."),
		tasks: d("switchboard_tasks", "Tasks in hand, by side (working: accepted by this agent and not finished; delegated: sent by this agent and not ended) and state.",
			"side", "state"),
		queue:      d("switchboard_bus_queue_length", "Messages waiting in the host's bus, by queue: inbound (for the agent loop) or outbound (for the channels).", "queue"),
		inFlight:   d("switchboard_agent_turns_in_progress", "Turns of the agent loop in progress."),
		oldestTurn: d("switchboard_agent_oldest_turn_age_seconds", "How long the oldest turn in progress has run (0 when none); /readyz fails past observability.metrics.maxTurnSeconds."),
	}
}

// Describe implements prometheus.Collector.
func (g *gauges) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{g.depth, g.oldest, g.tasks, g.queue, g.inFlight, g.oldestTurn} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (g *gauges) Collect(ch chan<- prometheus.Metric) {
	agent := g.m.agent
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append([]string{agent}, labels...)...)
	}
	if g.src.Inbox != nil {
		ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
		in, ok, err := g.src.Inbox(ctx)
		cancel()
		switch {
		case err != nil:
			ch <- prometheus.NewInvalidMetric(g.depth, err)
		case ok:
			gauge(g.depth, float64(in.Depth))
			age := 0.0
			if !in.Oldest.IsZero() {
				age = max(g.m.now().Sub(in.Oldest).Seconds(), 0)
			}
			gauge(g.oldest, age)
		}
	}
	if g.src.Tasks != nil {
		t := g.src.Tasks()
		gauge(g.tasks, float64(t.Working), "working", "working")
		for state, n := range t.Delegated {
			gauge(g.tasks, float64(n), "delegated", string(state))
		}
	}
	if g.src.Queues != nil {
		in, out := g.src.Queues()
		gauge(g.queue, float64(in), "inbound")
		gauge(g.queue, float64(out), "outbound")
	}
	gauge(g.inFlight, float64(g.m.turnsInFlight()))
	age, _ := g.m.OldestTurn()
	gauge(g.oldestTurn, age.Seconds())
}

// Collect adds the gauges read from src at scrape time to m's registry.
// Call it once.
func (m *Metrics) Collect(src Sources) {
	m.reg.MustRegister(newGauges(m, src))
}
