package otlpcollector

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// Span is one span received.
type Span struct {
	// TraceID, SpanID and ParentID are hex (ParentID "" for a root).
	TraceID, SpanID, ParentID string
	// Name is the span's name ("invoke_agent coder").
	Name string
	// Kind is "internal", "server", "client", "producer" or "consumer"
	// ("" when unspecified).
	Kind string
	// Start and End are when the span began and ended.
	Start, End time.Time
	// Agent is the gen_ai.agent.name of the span's resource: the agent of
	// the process that made it ("" when none).
	Agent string
	// Service is the resource's service.name.
	Service string
	// Attrs are the span's attributes, each value as text.
	Attrs map[string]string
	// Error is the status message of a span that ended with an error
	// status ("error" when it has no message); "" otherwise.
	Error string
}

// Duration is how long the span took.
func (s Span) Duration() time.Duration { return s.End.Sub(s.Start) }

// Who names the process that made the span: its agent, or its service
// when it has none.
func (s Span) Who() string {
	if s.Agent != "" {
		return s.Agent
	}
	return s.Service
}

// kindName is Span.Kind of k (a switch, not a map: no work at the start
// of every command).
func kindName(k tracepb.Span_SpanKind) string {
	switch k {
	case tracepb.Span_SPAN_KIND_INTERNAL:
		return "internal"
	case tracepb.Span_SPAN_KIND_SERVER:
		return "server"
	case tracepb.Span_SPAN_KIND_CLIENT:
		return "client"
	case tracepb.Span_SPAN_KIND_PRODUCER:
		return "producer"
	case tracepb.Span_SPAN_KIND_CONSUMER:
		return "consumer"
	}
	return ""
}

// spansOf turns the spans of an export into Spans.
func spansOf(data *tracepb.TracesData) []Span {
	var out []Span
	for _, rs := range data.GetResourceSpans() {
		res := attrMap(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := Span{TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					ParentID: hex.EncodeToString(s.GetParentSpanId()), Name: s.GetName(), Kind: kindName(s.GetKind()),
					Start: unixNano(s.GetStartTimeUnixNano()), End: unixNano(s.GetEndTimeUnixNano()),
					Agent: res["gen_ai.agent.name"], Service: res["service.name"], Attrs: attrMap(s.GetAttributes())}
				if st := s.GetStatus(); st.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
					sp.Error = st.GetMessage()
					if sp.Error == "" {
						sp.Error = "error"
					}
				}
				out = append(out, sp)
			}
		}
	}
	return out
}

func unixNano(ns uint64) time.Time {
	if ns == 0 || ns > 1<<63-1 {
		return time.Time{}
	}
	return time.Unix(0, int64(ns))
}

func attrMap(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = valueText(kv.GetValue())
	}
	return m
}

// valueText writes an attribute's value as text: a string as it is, an
// array as [a b c].
func valueText(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_BytesValue:
		return hex.EncodeToString(x.BytesValue)
	case *commonpb.AnyValue_ArrayValue:
		parts := make([]string, 0, len(x.ArrayValue.GetValues()))
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, valueText(e))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case *commonpb.AnyValue_KvlistValue:
		parts := make([]string, 0, len(x.KvlistValue.GetValues()))
		for _, kv := range x.KvlistValue.GetValues() {
			parts = append(parts, kv.GetKey()+"="+valueText(kv.GetValue()))
		}
		return "{" + strings.Join(parts, " ") + "}"
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}
