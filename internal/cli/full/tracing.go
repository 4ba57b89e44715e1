package full

import (
	"context"

	"go.opentelemetry.io/otel/attribute"

	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/cli"
	"github.com/switchboard-dev/switchboard/tracing/otlp"
)

// startTracing installs the OTLP exporter that cfg and the environment
// ask for (otlp.Start); the agent's id is the resource attribute
// gen_ai.agent.name.
func startTracing(ctx context.Context, cfg config.TracingConfig, o cli.TracingOptions) (func(context.Context) error, string, error) {
	var attrs []attribute.KeyValue
	if o.Agent != "" {
		attrs = append(attrs, attribute.String("gen_ai.agent.name", o.Agent))
	}
	return otlp.Start(ctx, cfg, otlp.Options{Environ: o.Environ, Logger: o.Logger, Attributes: attrs})
}
