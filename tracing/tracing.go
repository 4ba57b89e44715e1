package tracing

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-dev/switchboard/clock"
)

// ScopeName is the instrumentation scope of every span switchboard makes.
const ScopeName = "github.com/switchboard-dev/switchboard"

// The W3C Trace Context keys of a carrier (the HTTP header names).
const (
	KeyTraceparent = "traceparent"
	KeyTracestate  = "tracestate"
)

// propagator reads and writes the W3C traceparent and tracestate keys.
var propagator propagation.TraceContext

// Tracer returns switchboard's tracer from the global TracerProvider.
func Tracer() trace.Tracer { return otel.Tracer(ScopeName) }

// Enabled reports whether ctx carries a span that is being recorded: the
// cue to compute attributes that cost something.
func Enabled(ctx context.Context) bool { return trace.SpanFromContext(ctx).IsRecording() }

// Inject returns the W3C trace context of the span in ctx as a carrier
// (traceparent, and tracestate when there is one), or nil when ctx holds
// no valid span context.
func Inject(ctx context.Context) map[string]string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return nil
	}
	c := propagation.MapCarrier{}
	propagator.Inject(ctx, c)
	return c
}

// Extract returns ctx with the remote span context of carrier as its
// parent. A nil or malformed carrier leaves ctx as it is.
func Extract(ctx context.Context, carrier map[string]string) context.Context {
	if carrier[KeyTraceparent] == "" {
		return ctx
	}
	return propagator.Extract(ctx, propagation.MapCarrier(carrier))
}

// Parent returns the traceparent and tracestate of the span in ctx ("" when
// there is none), as a mailbox message carries them.
func Parent(ctx context.Context) (traceparent, tracestate string) {
	c := Inject(ctx)
	return c[KeyTraceparent], c[KeyTracestate]
}

// WithParent is Extract for a traceparent and tracestate.
func WithParent(ctx context.Context, traceparent, tracestate string) context.Context {
	if traceparent == "" {
		return ctx
	}
	return Extract(ctx, map[string]string{KeyTraceparent: traceparent, KeyTracestate: tracestate})
}

// TraceID returns the trace id (32 hex digits) of a traceparent, or ""
// when it is missing or malformed.
func TraceID(traceparent string) string {
	sc := trace.SpanContextFromContext(WithParent(context.Background(), traceparent, ""))
	if !sc.IsValid() {
		return ""
	}
	return sc.TraceID().String()
}

// End ends span, recording err as its error status when not nil.
func End(span trace.Span, err error) { EndAt(span, err, nil) }

// EndAt is End at the time of clk (nil: the real clock), for a span
// started at that clock's time (StartAt).
func EndAt(span trace.Span, err error, clk clock.Clock) {
	if err != nil {
		span.RecordError(err, trace.WithTimestamp(now(clk)))
		span.SetStatus(codes.Error, err.Error())
	}
	if clk == nil {
		span.End()
		return
	}
	span.End(trace.WithTimestamp(clk.Now()))
}

// StartAt is the start option of a span that begins at the time of clk,
// an injected clock, so that spans agree with the times the component
// stamps; nil (the real clock) adds none: the SDK reads the time itself.
func StartAt(clk clock.Clock) []trace.SpanStartOption {
	if clk == nil {
		return nil
	}
	return []trace.SpanStartOption{trace.WithTimestamp(clk.Now())}
}

func now(clk clock.Clock) time.Time {
	if clk == nil {
		return time.Now()
	}
	return clk.Now()
}
