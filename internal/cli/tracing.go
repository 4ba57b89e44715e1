package cli

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/tracing"
	"github.com/switchboard-dev/switchboard/tracing/otlp"
)

// tracingFlushTimeout bounds the export of the spans still buffered when a
// command ends.
const tracingFlushTimeout = 5 * time.Second

// startTracing turns tracing on when observability.tracing or the OTEL_
// environment variables ask for it (see otlp.Start), and returns what
// flushes the spans at the end. The agent's id ("" for none) is the
// resource attribute gen_ai.agent.name.
func (a *app) startTracing(ctx context.Context, cfg config.TracingConfig, agent string, logger *slog.Logger) (func(), error) {
	var attrs []attribute.KeyValue
	if agent != "" {
		attrs = append(attrs, attribute.String("gen_ai.agent.name", agent))
	}
	shutdown, where, err := otlp.Start(ctx, cfg, otlp.Options{Environ: a.env.Environ, Logger: logger, Attributes: attrs})
	if err != nil {
		return nil, err
	}
	if where != "" {
		logger.Info("tracing on", "otlp", where)
	}
	return func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), tracingFlushTimeout)
		defer cancel()
		if err := shutdown(fctx); err != nil {
			logger.Warn("tracing: spans not flushed", "err", err)
		}
	}, nil
}

// The environment variables that carry a caller's trace context into a
// command (OpenTelemetry's environment carriers): what send delivers joins
// that trace.
const (
	traceparentEnv = "TRACEPARENT"
	tracestateEnv  = "TRACESTATE"
)

// callerTrace returns ctx with the trace context of TRACEPARENT and
// TRACESTATE as its parent, when TRACEPARENT holds a valid one.
func (a *app) callerTrace(ctx context.Context) context.Context {
	tp, _ := a.lookupEnv(traceparentEnv)
	ts, _ := a.lookupEnv(tracestateEnv)
	return tracing.WithParent(ctx, tp, ts)
}
