package otlp

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/switchboard-dev/switchboard/config"
)

// Options are the extras of Start.
type Options struct {
	// Environ is the environment (nil: none; pass os.Environ()).
	Environ []string
	// Logger receives export errors (nil discards).
	Logger *slog.Logger
	// Attributes are added to the spans' resource (the agent's id).
	Attributes []attribute.KeyValue
	// HTTPClient makes the exports (nil: a client of its own).
	HTTPClient *http.Client
}

// Start installs the global TracerProvider that exports spans as cfg and
// the environment say (see Resolve). It returns the function that flushes
// the spans still buffered and stops the export, to call before exit; when
// tracing is off it installs nothing and returns a function that does
// nothing. where is the URL spans go to ("" when off).
func Start(ctx context.Context, cfg config.TracingConfig, opts Options) (shutdown func(context.Context) error, where string, err error) {
	nop := func(context.Context) error { return nil }
	s, on, err := Resolve(cfg, opts.Environ)
	if err != nil || !on {
		return nop, "", err
	}
	hc := opts.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	exp, err := otlptrace.New(ctx, &client{url: s.URL, headers: s.Headers, timeout: s.Timeout, http: hc})
	if err != nil {
		return nop, "", fmt.Errorf("tracing: %w", err)
	}
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK(),
		resource.WithAttributes(append([]attribute.KeyValue{attribute.String("service.name", s.ServiceName)}, opts.Attributes...)...))
	if err != nil {
		return nop, "", fmt.Errorf("tracing: resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { log.Warn("tracing: spans not exported", "err", err) }))
	otel.SetTextMapPropagator(propagation.TraceContext{})
	otel.SetTracerProvider(tp)
	return tp.Shutdown, s.URL, nil
}
