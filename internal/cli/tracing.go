package cli

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/tracing"
)

// tracingFlushTimeout bounds the export of the spans still buffered when a
// command ends.
const tracingFlushTimeout = 5 * time.Second

// startTracing turns tracing on when observability.tracing or the OTEL_
// environment variables ask for it (see otlp.Resolve), and returns what
// flushes the spans at the end. The agent's id ("" for none) is the
// resource attribute gen_ai.agent.name. The exporter is one of the
// Extras: without them, a command whose tracing may be on is delegated
// to switchboard-full (before it does anything), one whose tracing is off
// goes on.
func (a *app) startTracing(ctx context.Context, cfg config.TracingConfig, agent string, logger *slog.Logger) (func(), error) {
	if a.env.Extras == nil {
		if !tracingMayBeOn(cfg, a.env.Environ) {
			return func() {}, nil
		}
		return nil, a.needsFull("tracing")
	}
	shutdown, where, err := a.env.Extras.StartTracing(ctx, cfg, TracingOptions{
		Environ: a.env.Environ, Logger: logger, Agent: agent})
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

// tracingMayBeOn reports whether otlp.Resolve could turn tracing on: the
// config enables it, or the environment names an OTLP endpoint or the
// otlp exporter. It errs towards yes (OTEL_SDK_DISABLED, a bad value):
// switchboard-full then decides exactly.
func tracingMayBeOn(cfg config.TracingConfig, environ []string) bool {
	if cfg.Enabled {
		return true
	}
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":
			if v != "" {
				return true
			}
		case "OTEL_TRACES_EXPORTER":
			if v != "" && v != "none" {
				return true
			}
		}
	}
	return false
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
