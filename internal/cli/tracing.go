package cli

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/tracing/otlp"
)

// tracingFlushTimeout bounds the export of the spans still buffered when a
// command ends.
const tracingFlushTimeout = 5 * time.Second

// startTracing turns tracing on when observability.tracing or the OTEL_
// environment variables ask for it (see otlp.Resolve), and returns what
// flushes the spans at the end. The agent's id ("" for none) is the
// resource attribute gen_ai.agent.name.
func (a *app) startTracing(ctx context.Context, cfg config.TracingConfig, agent string, logger *slog.Logger) (func(), error) {
	var attrs []attribute.KeyValue
	if agent != "" {
		attrs = append(attrs, attribute.String("gen_ai.agent.name", agent))
	}
	shutdown, where, err := otlp.Start(ctx, cfg, otlp.Options{
		Environ: a.env.Environ, Logger: logger, Attributes: attrs})
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
