package metrics_test

import (
	"bytes"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/internal/mailbox/limits"
	"github.com/switchboard-dev/switchboard/observe/metrics"
)

// The guard rails' counts show as counters (and the open breakers as a
// gauge), one series per limit, budget, kind and outcome, read afresh at
// each scrape.
func TestGuardMetrics(t *testing.T) {
	t.Parallel()
	m := metrics.New(metrics.Options{Agent: "lead"})
	lim := limits.Stats{SendLimited: 5, AgentLimited: 2, ReceiveLimited: 7, BreakerTrips: 1, BreakerRefusals: 3}
	open := 1
	m.CollectGuards(metrics.Guards{
		Limits:       func() limits.Stats { return lim },
		OpenBreakers: func() int { return open },
		Budget:       func() mailbox.BudgetStats { return mailbox.BudgetStats{TaskRefusals: 4, DailyRefusals: 6} },
		Approvals: func() agentloop.ApprovalStats {
			return agentloop.ApprovalStats{
				Tool: agentloop.ApprovalCounts{Asked: 5, Approved: 2, Denied: 1, TimedOut: 1, NotAsked: 1},
				Task: agentloop.ApprovalCounts{Asked: 1, Denied: 1},
			}
		},
	})
	want := map[string]float64{
		`switchboard_limits_tripped_total{agent="lead",limit="perEdge"}`:                    3,
		`switchboard_limits_tripped_total{agent="lead",limit="perAgent"}`:                   2,
		`switchboard_limits_tripped_total{agent="lead",limit="perSender"}`:                  7,
		`switchboard_limits_tripped_total{agent="lead",limit="breaker"}`:                    3,
		`switchboard_breakers_opened_total{agent="lead"}`:                                   1,
		`switchboard_breakers_open{agent="lead"}`:                                           1,
		`switchboard_budget_refusals_total{agent="lead",budget="task"}`:                     4,
		`switchboard_budget_refusals_total{agent="lead",budget="daily"}`:                    6,
		`switchboard_approvals_requested_total{agent="lead",kind="tool"}`:                   5,
		`switchboard_approvals_requested_total{agent="lead",kind="task"}`:                   1,
		`switchboard_approvals_decided_total{agent="lead",kind="tool",outcome="approved"}`:  2,
		`switchboard_approvals_decided_total{agent="lead",kind="tool",outcome="denied"}`:    1,
		`switchboard_approvals_decided_total{agent="lead",kind="tool",outcome="timed_out"}`: 1,
		`switchboard_approvals_decided_total{agent="lead",kind="tool",outcome="not_asked"}`: 1,
		`switchboard_approvals_decided_total{agent="lead",kind="task",outcome="approved"}`:  0,
		`switchboard_approvals_decided_total{agent="lead",kind="task",outcome="denied"}`:    1,
		`switchboard_approvals_decided_total{agent="lead",kind="task",outcome="timed_out"}`: 0,
		`switchboard_approvals_decided_total{agent="lead",kind="task",outcome="not_asked"}`: 0,
	}
	got := guardSamples(t, m)
	assert.Equal(t, want, got)
	for name, typ := range map[string]string{"switchboard_limits_tripped_total": "COUNTER", "switchboard_breakers_open": "GAUGE"} {
		assert.Equal(t, typ, familyType(t, m, name), name)
	}

	lim.BreakerRefusals, open = 4, 0 // read again at the next scrape
	got = guardSamples(t, m)
	assert.Equal(t, 4.0, got[`switchboard_limits_tripped_total{agent="lead",limit="breaker"}`])
	assert.Equal(t, 0.0, got[`switchboard_breakers_open{agent="lead"}`])
}

// gather renders m's registry in the text format and parses it back with
// the Prometheus text parser.
func gather(t *testing.T, m *metrics.Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	fams, err := m.Registry().Gather()
	require.NoError(t, err)
	var buf bytes.Buffer
	for _, f := range fams {
		_, err := expfmt.MetricFamilyToText(&buf, f)
		require.NoError(t, err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	parsed, err := p.TextToMetricFamilies(&buf)
	require.NoError(t, err)
	return parsed
}

// guardSamples returns the samples of the guard rails' families, by
// name{labels} in the text format's order.
func guardSamples(t *testing.T, m *metrics.Metrics) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for name, f := range gather(t, m) {
		switch name {
		case "switchboard_limits_tripped_total", "switchboard_breakers_opened_total", "switchboard_breakers_open",
			"switchboard_budget_refusals_total", "switchboard_approvals_requested_total", "switchboard_approvals_decided_total":
		default:
			continue
		}
		for _, s := range f.GetMetric() {
			key := name + "{"
			for i, l := range s.GetLabel() {
				if i > 0 {
					key += ","
				}
				key += l.GetName() + `="` + l.GetValue() + `"`
			}
			out[key+"}"] = s.GetCounter().GetValue() + s.GetGauge().GetValue()
		}
	}
	return out
}

func familyType(t *testing.T, m *metrics.Metrics, name string) string {
	t.Helper()
	f, ok := gather(t, m)[name]
	require.True(t, ok, name)
	return f.GetType().String()
}
