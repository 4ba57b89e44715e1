package config

import "net/url"

// TracingConfig is the "observability.tracing" section. The standard
// OTEL_ environment variables (OTEL_EXPORTER_OTLP_ENDPOINT,
// OTEL_TRACES_EXPORTER, OTEL_SERVICE_NAME, ...) turn tracing on too, and
// win over these keys; see docs/observability.md.
type TracingConfig struct {
	// Enabled exports spans to Endpoint.
	Enabled bool `json:"enabled"`
	// Endpoint is the base URL of an OTLP/HTTP collector
	// ("http://127.0.0.1:4318"; spans go to its /v1/traces), or the full
	// URL of its traces path. "" is http://localhost:4318.
	Endpoint string `json:"endpoint"`
	// ServiceName is the service.name of the spans ("" is "switchboard").
	ServiceName string `json:"serviceName"`
	// Headers are sent with every export (an API key of a hosted
	// collector).
	Headers map[string]string `json:"headers"`
}

func (t TracingConfig) validate(p *problems) {
	const prefix = "observability.tracing."
	if t.Endpoint != "" {
		if u, err := url.Parse(t.Endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.invalid(prefix+"endpoint", "want an http:// or https:// URL, got %q", t.Endpoint)
		}
	}
	for h := range t.Headers {
		if !validHeaderName(h) {
			p.invalid(prefix+"headers."+h, "not a valid HTTP header name: use letters, digits and '-'")
		}
	}
}
