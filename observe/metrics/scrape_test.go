package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/testkit"
	"github.com/switchboard-dev/switchboard/observe/metrics"
)

// Scrape GETs url and parses it with the Prometheus text parser.
func Scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	return fams
}

// value returns the value of the sample of family name whose labels
// include want (a counter's or gauge's value, a histogram's count).
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) float64 {
	t.Helper()
	fam, ok := fams[name]
	require.True(t, ok, "no metric %s", name)
next:
	for _, m := range fam.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	t.Fatalf("no sample of %s with labels %v in %v", name, want, fam.Metric)
	return 0
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// Every path of a Metrics shows in /metrics, named and labelled as the
// docs say; /healthz follows the oldest turn and /readyz the checks.
func TestMetricsServed(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC))
	m := metrics.New(metrics.Options{Agent: "coder", Now: clk.Now, MaxTurn: time.Minute})

	// the agent loop: one turn with two provider calls and a tool call
	h := m.Hook()
	turn := agent.NewTurn(bus.InboundMessage{Channel: "mailbox", ChatID: "alice", ID: "m-1"})
	ctx, endTurn := h.Turn(context.Background(), turn)
	_, endChat, err := h.Chat(ctx, turn, &agent.Request{Model: "gpt-x"})
	require.NoError(t, err)
	clk.Add(2 * time.Second)
	endChat(&agent.Response{Model: "gpt-x-2026", Usage: agent.Usage{InputTokens: 100, OutputTokens: 7}}, nil)
	_, endTool := h.Tool(ctx, turn, agent.ToolCall{Name: "list_agents"})
	endTool("[]", false)
	_, endTool = h.Tool(ctx, turn, agent.ToolCall{Name: "list_agents"})
	endTool("error: no", true)
	_, endChat, _ = h.Chat(ctx, turn, &agent.Request{Model: "gpt-x"})
	endChat(nil, context.DeadlineExceeded)
	endTurn(nil, turn.Usage())
	_, endTurn = h.Turn(context.Background(), agent.NewTurn(bus.InboundMessage{ID: "m-2"}))
	endTurn(&agent.TaskFailure{Reason: "no"}, agent.Usage{})

	// the mailbox
	mt := m.Meter()
	sentAt := clk.Now().Add(-3 * time.Second)
	msg := &envelope.Message{ID: "m-1", Type: envelope.TypeTask, Timestamp: envelope.NewTime(sentAt)}
	mt.Delivered(msg, false, clk.Now())
	mt.Delivered(&envelope.Message{ID: "m-0", Timestamp: envelope.NewTime(sentAt)}, true, clk.Now())
	mt.Sent(&envelope.Message{ID: "m-3", Type: envelope.TypeTaskUpdate})
	for _, k := range []store.EventKind{store.EventProcessed, store.EventProcessed, store.EventRefused,
		store.EventQuarantined, store.EventDuplicate, store.EventClaimed} {
		mt.Event(store.Event{Kind: k})
	}
	mt.Event(store.Event{Kind: store.EventQuarantined, Reason: store.MaxDeliverReason(5, 5)})

	// the scrape-time gauges, and a turn in progress
	m.Collect(metrics.Sources{
		Inbox: func(context.Context) (metrics.Inbox, bool, error) {
			return metrics.Inbox{Depth: 4, Oldest: clk.Now().Add(-90 * time.Second)}, true, nil
		},
		Tasks: func() mailbox.TaskCounts {
			return mailbox.TaskCounts{Working: 2, Delegated: map[envelope.TaskState]int{envelope.StateAccepted: 1}}
		},
		Queues: func() (int, int) { return 3, 1 },
	})
	_, endLong := h.Turn(context.Background(), agent.NewTurn(bus.InboundMessage{ID: "m-9"}))
	defer endLong(nil, agent.Usage{})
	clk.Add(10 * time.Second)

	storeDown := errors.New("mailbox root: no such file or directory")
	var down atomic.Bool
	live := []metrics.Check{{Name: "loop", Fn: func(context.Context) error { return m.Wedged() }}}
	ready := []metrics.Check{{Name: "store", Fn: func(context.Context) error {
		if down.Load() {
			return storeDown
		}
		return nil
	}}}
	srv, err := metrics.Listen("127.0.0.1:0", m, live, ready, nil)
	require.NoError(t, err)
	defer srv.Close(testkit.Ctx(t))
	base := "http://" + srv.Addr()

	f := Scrape(t, base+"/metrics")
	agent := map[string]string{"agent": "coder"}
	with := func(kv ...string) map[string]string {
		out := map[string]string{"agent": "coder"}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i]] = kv[i+1]
		}
		return out
	}
	assert.Equal(t, 1.0, value(t, f, "switchboard_agent_turns_total", with("outcome", "ok")))
	assert.Equal(t, 1.0, value(t, f, "switchboard_agent_turns_total", with("outcome", "task_failed")))
	assert.Equal(t, 1.0, value(t, f, "switchboard_gen_ai_client_requests_total", with("gen_ai_request_model", "gpt-x", "outcome", "ok")))
	assert.Equal(t, 1.0, value(t, f, "switchboard_gen_ai_client_requests_total", with("outcome", "error")))
	assert.Equal(t, 1.0, value(t, f, "switchboard_gen_ai_client_operation_duration_seconds", with("error_type", "timeout")))
	assert.Equal(t, 1.0, value(t, f, "switchboard_gen_ai_client_token_usage",
		with("gen_ai_token_type", "input", "gen_ai_response_model", "gpt-x-2026", "gen_ai_operation_name", "chat")))
	assert.Equal(t, 107.0, sum(f, "switchboard_gen_ai_client_token_usage"), "input + output tokens")
	assert.Equal(t, 1.0, value(t, f, "switchboard_tool_calls_total", with("tool", "list_agents", "outcome", "ok")))
	assert.Equal(t, 1.0, value(t, f, "switchboard_tool_calls_total", with("tool", "list_agents", "outcome", "error")))
	assert.Equal(t, 2.0, value(t, f, "switchboard_mailbox_messages_received_total", with("type", "task"))+
		value(t, f, "switchboard_mailbox_messages_received_total", with("type", "message")))
	assert.Equal(t, 1.0, value(t, f, "switchboard_mailbox_messages_redelivered_total", with("type", "message")))
	assert.Equal(t, 1.0, value(t, f, "switchboard_mailbox_delivery_latency_seconds", with("type", "task")))
	assert.Equal(t, 3.0, sum(f, "switchboard_mailbox_delivery_latency_seconds"), "the stamped time to the hand-over")
	assert.Equal(t, 1.0, value(t, f, "switchboard_mailbox_messages_sent_total", with("type", "task_update")))
	assert.Equal(t, 2.0, value(t, f, "switchboard_mailbox_messages_acknowledged_total", agent))
	assert.Equal(t, 1.0, value(t, f, "switchboard_mailbox_messages_set_aside_total", with("outcome", "refused")))
	assert.Equal(t, 1.0, value(t, f, "switchboard_mailbox_messages_set_aside_total", with("outcome", "unreadable")))
	assert.Equal(t, 1.0, value(t, f, "switchboard_mailbox_messages_duplicate_total", agent))
	assert.Equal(t, 1.0, value(t, f, "switchboard_mailbox_messages_set_aside_total", with("outcome", "max_deliver")))
	_, ok := f["switchboard_limits_tripped_total"]
	assert.False(t, ok, "no guard rails' metrics without their sources")
	assert.Equal(t, 4.0, value(t, f, "switchboard_mailbox_inbox_depth", agent))
	assert.Equal(t, 90.0, value(t, f, "switchboard_mailbox_inbox_oldest_age_seconds", agent))
	assert.Equal(t, 2.0, value(t, f, "switchboard_tasks", with("side", "working")))
	assert.Equal(t, 1.0, value(t, f, "switchboard_tasks", with("side", "delegated", "state", "accepted")))
	assert.Equal(t, 3.0, value(t, f, "switchboard_bus_queue_length", with("queue", "inbound")))
	assert.Equal(t, 1.0, value(t, f, "switchboard_agent_turns_in_progress", agent))
	assert.Equal(t, 10.0, value(t, f, "switchboard_agent_oldest_turn_age_seconds", agent))
	assert.Contains(t, f, "go_goroutines", "the runtime's metrics")

	code, body := get(t, base+"/healthz")
	assert.Equal(t, http.StatusOK, code, body)
	code, body = get(t, base+"/readyz")
	assert.Equal(t, http.StatusOK, code, body)

	down.Store(true)
	code, body = get(t, base+"/readyz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.Equal(t, "store: mailbox root: no such file or directory\n", body)

	clk.Add(time.Minute) // the turn in progress is now 70 s old
	code, body = get(t, base+"/healthz")
	assert.Equal(t, http.StatusServiceUnavailable, code)
	assert.True(t, strings.HasPrefix(body, "loop: the agent loop's oldest turn has run 1m10s"), body)
}

// sum is the sum of every sample of a histogram family.
func sum(fams map[string]*dto.MetricFamily, name string) float64 {
	total := 0.0
	for _, m := range fams[name].GetMetric() {
		total += m.GetHistogram().GetSampleSum()
	}
	return total
}
