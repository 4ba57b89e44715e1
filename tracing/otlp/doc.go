// Package otlp turns tracing on: it installs an OpenTelemetry
// TracerProvider that exports switchboard's spans over OTLP/HTTP
// (protobuf) to a collector (Jaeger, Grafana Tempo, the OpenTelemetry
// Collector, `switchboard demo --observe`), configured by the
// observability.tracing section of the configuration and the standard
// OTEL_ environment variables, which win over it. Without either, Start
// installs nothing and tracing costs next to nothing.
//
// It speaks OTLP/HTTP with a small client of its own (client.go) over
// go.opentelemetry.io/otel/exporters/otlp/otlptrace, which turns spans
// into OTLP's protobuf messages, rather than the otlptracehttp exporter.
// That exporter imports the collector's gRPC service package, and with it
// gRPC and golang.org/x/net/trace, whose html/template turns off the
// linker's removal of unused methods: measured on the program that links
// everything (docs/observability.md, "Why not otlptracehttp"), it made the
// binary 48 MB (72 %) larger and every start of it, tracing on or off,
// about 5.5 ms (50 %) more CPU.
package otlp
