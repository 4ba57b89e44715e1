package metrics

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Label names. Every metric carries "agent", the mailbox agent id of the
// host ("" when it has no mailbox).
const (
	labelAgent   = "agent"
	labelType    = "type"    // a mailbox message's type: message, task, task_update
	labelOutcome = "outcome" // ok, error, ... (see each metric)
)

// Options are the settings of New; zero values take defaults.
type Options struct {
	// Agent is the value of the agent label until Watch sets it from the
	// host.
	Agent string
	// Now is the time of delivery latencies and turn ages (default
	// time.Now).
	Now func() time.Time
	// MaxTurn is the age of the oldest turn in progress past which the
	// loop counts as wedged (default 5 minutes).
	MaxTurn time.Duration
}

// Metrics holds a host's metrics and their registry. Create it with New.
type Metrics struct {
	reg     *prometheus.Registry
	now     func() time.Time
	maxTurn time.Duration
	agent   string // set before the host starts, read-only after

	mailbox mailboxMetrics
	loop    loopMetrics

	mu       sync.Mutex
	inFlight map[any]time.Time // turns in progress, by turn, with their start
}

// New returns a Metrics with its own registry, which holds the Go
// runtime's and the process's collectors as well as switchboard's.
func New(opts Options) *Metrics {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.MaxTurn <= 0 {
		opts.MaxTurn = 5 * time.Minute
	}
	m := &Metrics{reg: prometheus.NewRegistry(), now: opts.Now, maxTurn: opts.MaxTurn, agent: opts.Agent,
		inFlight: map[any]time.Time{}}
	m.mailbox = newMailboxMetrics(m.reg)
	m.loop = newLoopMetrics(m.reg)
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry returns the registry that holds every metric of m.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// counter registers a counter vector on reg.
func counter(reg *prometheus.Registry, name, help string, labels ...string) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	reg.MustRegister(c)
	return c
}

// histogram registers a histogram vector on reg.
func histogram(reg *prometheus.Registry, name, help string, buckets []float64, labels ...string) *prometheus.HistogramVec {
	h := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: buckets}, labels)
	reg.MustRegister(h)
	return h
}
