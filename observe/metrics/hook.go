package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/prometheus/client_golang/prometheus"
)

// Buckets of the loop's histograms. The token buckets are the ones the
// OpenTelemetry GenAI conventions advise for gen_ai.client.token.usage,
// the duration buckets those of gen_ai.client.operation.duration.
var (
	tokenBuckets    = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	durationBuckets = []float64{.01, .02, .04, .08, .16, .32, .64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	turnBuckets     = []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}
)

// OpenTelemetry GenAI attribute names, as Prometheus labels.
const (
	labelOperation     = "gen_ai_operation_name"
	labelRequestModel  = "gen_ai_request_model"
	labelResponseModel = "gen_ai_response_model"
	labelTokenType     = "gen_ai_token_type"
	labelErrorType     = "error_type"
	labelTool          = "tool"
)

type loopMetrics struct {
	turns        *prometheus.CounterVec
	turnDuration *prometheus.HistogramVec
	requests     *prometheus.CounterVec
	opDuration   *prometheus.HistogramVec
	tokens       *prometheus.HistogramVec
	cacheHits    *prometheus.CounterVec
	tools        *prometheus.CounterVec
	toolDuration *prometheus.HistogramVec
}

func newLoopMetrics(reg *prometheus.Registry) loopMetrics {
	return loopMetrics{
		turns: counter(reg, "switchboard_agent_turns_total",
			"Turns of the agent loop (one per message answered), by outcome: ok, task_failed (the work cannot be done), error.",
			labelAgent, labelOutcome),
		turnDuration: histogram(reg, "switchboard_agent_turn_duration_seconds",
			"Seconds a turn took, from the message taken to the answer ready, by outcome.", turnBuckets, labelAgent, labelOutcome),
		requests: counter(reg, "switchboard_gen_ai_client_requests_total",
			"Requests to the LLM provider (including a task's judgement), by requested model and outcome: ok or error.",
			labelAgent, labelOperation, labelRequestModel, labelOutcome),
		opDuration: histogram(reg, "switchboard_gen_ai_client_operation_duration_seconds",
			"Seconds an LLM request took (OpenTelemetry gen_ai.client.operation.duration); error_type is empty on success.",
			durationBuckets, labelAgent, labelOperation, labelRequestModel, labelResponseModel, labelErrorType),
		tokens: histogram(reg, "switchboard_gen_ai_client_token_usage",
			"Tokens of one LLM request (OpenTelemetry gen_ai.client.token.usage), by token type: input or output; "+
				"cache_read and cache_creation, the part of input read from or written to the provider's prompt cache, "+
				"are observed for the requests that report them.",
			tokenBuckets, labelAgent, labelOperation, labelRequestModel, labelResponseModel, labelTokenType),
		cacheHits: counter(reg, "switchboard_gen_ai_client_prompt_cache_hits_total",
			"LLM requests that read part of their prompt from the provider's prompt cache.",
			labelAgent, labelOperation, labelRequestModel),
		tools: counter(reg, "switchboard_tool_calls_total",
			"Tool calls of the agent loop, by tool and outcome: ok or error.", labelAgent, labelTool, labelOutcome),
		toolDuration: histogram(reg, "switchboard_tool_call_duration_seconds",
			"Seconds a tool call took, by tool.", turnBuckets, labelAgent, labelTool),
	}
}

// Hook returns the agentloop.Hook that counts m's loop metrics. It never
// refuses a call.
func (m *Metrics) Hook() agent.Hook { return hook{m} }

type hook struct{ m *Metrics }

var _ agent.Hook = hook{}

// Turn implements agentloop.Hook.
func (h hook) Turn(ctx context.Context, t *agent.Turn) (context.Context, func(error, agent.Usage)) {
	m := h.m
	start := m.now()
	m.mu.Lock()
	m.inFlight[t] = start
	m.mu.Unlock()
	return ctx, func(err error, _ agent.Usage) {
		m.mu.Lock()
		delete(m.inFlight, t)
		m.mu.Unlock()
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return // cut short by a stop: the message comes back, its turn is counted then
		}
		outcome := "ok"
		var tf *agent.TaskFailure
		switch {
		case errors.As(err, &tf):
			outcome = "task_failed"
		case err != nil:
			outcome = "error"
		}
		m.loop.turns.WithLabelValues(m.agent, outcome).Inc()
		m.loop.turnDuration.WithLabelValues(m.agent, outcome).Observe(m.now().Sub(start).Seconds())
	}
}

// Chat implements agentloop.Hook.
func (h hook) Chat(ctx context.Context, _ *agent.Turn, req *agent.Request) (context.Context, func(*agent.Response, error), error) {
	m, model, start := h.m, req.Model, h.m.now()
	const op = "chat"
	return ctx, func(resp *agent.Response, err error) {
		l := &m.loop
		took := m.now().Sub(start).Seconds()
		if err != nil {
			l.requests.WithLabelValues(m.agent, op, model, "error").Inc()
			l.opDuration.WithLabelValues(m.agent, op, model, "", errorType(err)).Observe(took)
			return
		}
		l.requests.WithLabelValues(m.agent, op, model, "ok").Inc()
		l.opDuration.WithLabelValues(m.agent, op, model, resp.Model, "").Observe(took)
		if resp.Usage.Total() > 0 {
			l.tokens.WithLabelValues(m.agent, op, model, resp.Model, "input").Observe(float64(resp.Usage.InputTokens))
			l.tokens.WithLabelValues(m.agent, op, model, resp.Model, "output").Observe(float64(resp.Usage.OutputTokens))
		}
		if u := resp.Usage; u.CachedTokens > 0 {
			l.cacheHits.WithLabelValues(m.agent, op, model).Inc()
			l.tokens.WithLabelValues(m.agent, op, model, resp.Model, "cache_read").Observe(float64(u.CachedTokens))
		}
		if u := resp.Usage; u.CacheWriteTokens > 0 {
			l.tokens.WithLabelValues(m.agent, op, model, resp.Model, "cache_creation").Observe(float64(u.CacheWriteTokens))
		}
	}, nil
}

// Tool implements agentloop.Hook.
func (h hook) Tool(ctx context.Context, _ *agent.Turn, c agent.ToolCall) (context.Context, func(string, bool)) {
	m, start := h.m, h.m.now()
	return ctx, func(_ string, failed bool) {
		outcome := "ok"
		if failed {
			outcome = "error"
		}
		m.loop.tools.WithLabelValues(m.agent, c.Name, outcome).Inc()
		m.loop.toolDuration.WithLabelValues(m.agent, c.Name).Observe(m.now().Sub(start).Seconds())
	}
}

// errorType is the error_type label of a failed request: "timeout",
// "canceled", or "_OTHER" as the GenAI conventions name the rest (an
// error's text would make the label's values endless).
func errorType(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "_OTHER"
}

// OldestTurn returns how long the oldest turn in progress has run, and
// whether one is in progress.
func (m *Metrics) OldestTurn() (time.Duration, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var oldest time.Time
	for _, at := range m.inFlight {
		if oldest.IsZero() || at.Before(oldest) {
			oldest = at
		}
	}
	if oldest.IsZero() {
		return 0, false
	}
	return m.now().Sub(oldest), true
}

// turnsInFlight returns how many turns are in progress.
func (m *Metrics) turnsInFlight() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.inFlight)
}

// Wedged returns an error when the oldest turn in progress is older than
// Options.MaxTurn: the loop no longer gets through its work.
func (m *Metrics) Wedged() error {
	if age, ok := m.OldestTurn(); ok && age > m.maxTurn {
		return &wedgedError{age: age, max: m.maxTurn}
	}
	return nil
}

type wedgedError struct{ age, max time.Duration }

func (e *wedgedError) Error() string {
	return "the agent loop's oldest turn has run " + e.age.Round(time.Second).String() +
		", longer than " + e.max.String() + " (observability.metrics.maxTurnSeconds)"
}
