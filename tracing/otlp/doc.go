// Package otlp turns tracing on: it installs an OpenTelemetry
// TracerProvider that exports switchboard's spans over OTLP/HTTP
// (protobuf) to a collector (Jaeger, Grafana Tempo, the OpenTelemetry
// Collector, `switchboard demo --observe`), configured by the
// observability.tracing section of the configuration and the standard
// OTEL_ environment variables, which win over it. Without either, Start
// installs nothing and tracing costs next to nothing.
//
// It speaks OTLP/HTTP with a small client of its own over
// go.opentelemetry.io/otel/exporters/otlp/otlptrace (which turns spans
// into OTLP's protobuf messages) rather than the otlptracehttp exporter,
// whose gRPC dependencies would be initialised by every start of the
// command line, tracing on or off.
package otlp
