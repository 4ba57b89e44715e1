// Package metrics exports what a switchboard host does as Prometheus
// metrics, and serves them over HTTP with /healthz and /readyz.
//
// A Metrics counts on three paths, none of which imports Prometheus
// itself: the agent loop's Hook (turns, LLM requests, tokens, tool
// calls), the mailbox channel's Meter (messages sent, received,
// acknowledged, set aside, redelivered; delivery latency), and, at
// scrape time, what the host holds (inbox depth and the age of its
// oldest message, tasks by state, the bus's queues, turns in progress)
// and what its guard rails counted (limits and breakers tripped, budget
// refusals, approvals: Guards).
// Nothing is registered globally: each Metrics has its own registry, and
// nothing of Prometheus runs in a process that does not create one.
//
// Names follow Prometheus conventions (switchboard_ prefix, base units,
// _total counters, few label values); the LLM metrics follow the
// OpenTelemetry GenAI metric names (gen_ai.client.token.usage is
// switchboard_gen_ai_client_token_usage). docs/observability.md lists
// every metric.
package metrics
