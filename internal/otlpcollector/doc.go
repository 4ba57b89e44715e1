// Package otlpcollector is a small OTLP/HTTP trace receiver that keeps the
// spans it is sent in memory, and draws them as trees: what
// `switchboard demo --observe` runs on 127.0.0.1 so that the demo's trace
// can be seen without a tracing backend, and what the end-to-end tests
// export to.
//
// It takes what switchboard's exporter (package tracing/otlp) and any
// OpenTelemetry SDK sends with the http/protobuf protocol: POST /v1/traces,
// Content-Type application/x-protobuf, gzip or not. It decodes the body as
// TracesData, which is wire-compatible with ExportTraceServiceRequest, so
// it needs none of the collector's gRPC packages.
package otlpcollector
