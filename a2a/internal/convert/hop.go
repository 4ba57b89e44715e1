package convert

import (
	"encoding/json"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/tracing"
)

// MetaKey is the key of switchboard's object in the metadata of an A2A
// message (Hop). A2A leaves metadata keys to extensions; other peers
// ignore it.
const MetaKey = "switchboard"

// Hop is what a switchboard agent tells the next agent when a task
// crosses an A2A hop, so that the guard rails see the whole tree: the
// mailbox task it came from, who sent it, its place in its task tree
// (task_path, for the cycle and depth checks) and what it may still
// spend (budget).
type Hop struct {
	// Task is the mailbox task the A2A task does.
	Task string `json:"task_id,omitempty"`
	// From is the agent that delegated it.
	From string `json:"from,omitempty"`
	// TaskPath is the mailbox task's task_path.
	TaskPath []string `json:"task_path,omitempty"`
	// Budget is what the task may still spend on models.
	Budget *envelope.Budget `json:"budget,omitempty"`
}

// HopOf reads the Hop in A2A metadata; ok is false when there is none or
// it does not decode (a peer's metadata is never trusted to be well
// formed: a bad one is ignored).
func HopOf(md map[string]any) (h Hop, ok bool) {
	v, found := md[MetaKey]
	if !found || v == nil {
		return h, false
	}
	data, err := json.Marshal(v)
	if err != nil || json.Unmarshal(data, &h) != nil {
		return Hop{}, false
	}
	if h.Budget != nil && (h.Budget.Tokens < 0 || h.Budget.Cost < 0) {
		h.Budget = nil
	}
	return h, true
}

// WithHop stores h in md (allocated when nil) as plain JSON values (the
// SDK's task store accepts no other types in metadata) and returns md.
func WithHop(md map[string]any, h Hop) map[string]any {
	if md == nil {
		md = map[string]any{}
	}
	data, err := json.Marshal(h)
	if err != nil {
		return md // a Hop always encodes
	}
	var plain map[string]any
	if json.Unmarshal(data, &plain) == nil {
		md[MetaKey] = plain
	}
	return md
}

// TraceOf returns the W3C trace context in A2A metadata (the keys
// traceparent and tracestate, as the HTTP headers are named), or nil.
func TraceOf(md map[string]any) map[string]string {
	tp, _ := md[tracing.KeyTraceparent].(string)
	if tp == "" {
		return nil
	}
	c := map[string]string{tracing.KeyTraceparent: tp}
	if ts, _ := md[tracing.KeyTracestate].(string); ts != "" {
		c[tracing.KeyTracestate] = ts
	}
	return c
}

// WithTrace adds the trace context carrier to md (allocated when nil and
// carrier is not empty) and returns md.
func WithTrace(md map[string]any, carrier map[string]string) map[string]any {
	if len(carrier) == 0 {
		return md
	}
	if md == nil {
		md = map[string]any{}
	}
	for k, v := range carrier {
		md[k] = v
	}
	return md
}
