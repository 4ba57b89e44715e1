package otlp

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/config"
)

// Settings say where spans go; Resolve makes them from the configuration
// and the environment.
type Settings struct {
	// URL is the full URL spans are POSTed to (".../v1/traces").
	URL string
	// Headers are sent with every export.
	Headers map[string]string
	// Timeout bounds one export.
	Timeout time.Duration
	// ServiceName is the spans' service.name.
	ServiceName string
}

// Defaults of Settings.
const (
	DefaultEndpoint    = "http://localhost:4318"
	DefaultServiceName = "switchboard"
	DefaultTimeout     = 10 * time.Second
	tracesPath         = "/v1/traces"
)

// Resolve returns where spans go, or ok false when tracing is off. It is
// on when observability.tracing.enabled is set, or when the environment
// names an OTLP endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) or OTEL_TRACES_EXPORTER=otlp; it is
// off, whatever else says, with OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none. The environment's endpoint, headers
// (OTEL_EXPORTER_OTLP_[TRACES_]HEADERS, "k=v,k2=v2"), timeout
// (OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT, milliseconds) and OTEL_SERVICE_NAME
// win over the configuration's. A protocol other than http/protobuf, or a
// malformed value, is an error naming the variable.
func Resolve(cfg config.TracingConfig, environ []string) (s Settings, ok bool, err error) {
	env := envMap(environ)
	if strings.EqualFold(env["OTEL_SDK_DISABLED"], "true") {
		return s, false, nil
	}
	switch exp := env["OTEL_TRACES_EXPORTER"]; exp {
	case "none":
		return s, false, nil
	case "", "otlp":
		ok = cfg.Enabled || exp == "otlp" || env["OTEL_EXPORTER_OTLP_ENDPOINT"] != "" ||
			env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] != ""
	default:
		return s, false, fmt.Errorf("OTEL_TRACES_EXPORTER=%q: want otlp or none", exp)
	}
	if !ok {
		return s, false, nil
	}
	if p := first(env, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"); p != "" && p != "http/protobuf" {
		return s, false, fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL=%q: switchboard exports http/protobuf only (a collector's port 4318)", p)
	}
	s = Settings{ServiceName: DefaultServiceName, Timeout: DefaultTimeout, Headers: map[string]string{}}
	switch {
	case env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] != "":
		s.URL = env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"] // used as it is, by the specification
	case env["OTEL_EXPORTER_OTLP_ENDPOINT"] != "":
		s.URL = strings.TrimSuffix(env["OTEL_EXPORTER_OTLP_ENDPOINT"], "/") + tracesPath
	case cfg.Endpoint != "":
		s.URL = tracesURL(cfg.Endpoint)
	default:
		s.URL = DefaultEndpoint + tracesPath
	}
	if u, perr := url.Parse(s.URL); perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return s, false, fmt.Errorf("OTLP endpoint %q: want an http:// or https:// URL", s.URL)
	}
	for k, v := range cfg.Headers {
		s.Headers[k] = v
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS"} {
		if err := parseHeaders(env[name], s.Headers); err != nil {
			return s, false, fmt.Errorf("%s: %w", name, err)
		}
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_TIMEOUT"} {
		if v := env[name]; v != "" {
			ms, perr := strconv.Atoi(v)
			if perr != nil || ms <= 0 {
				return s, false, fmt.Errorf("%s=%q: want a whole number of milliseconds over 0", name, v)
			}
			s.Timeout = time.Duration(ms) * time.Millisecond
			break
		}
	}
	if cfg.ServiceName != "" {
		s.ServiceName = cfg.ServiceName
	}
	if v := env["OTEL_SERVICE_NAME"]; v != "" {
		s.ServiceName = v
	}
	return s, true, nil
}

// tracesURL is the traces URL of a configured endpoint: its /v1/traces
// when it names no path.
func tracesURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Path != "" && u.Path != "/") {
		return endpoint
	}
	return strings.TrimSuffix(endpoint, "/") + tracesPath
}

// parseHeaders adds the headers of an OTEL_EXPORTER_OTLP_HEADERS value
// ("k=v,k2=v2", values URL-encoded) to into.
func parseHeaders(v string, into map[string]string) error {
	for _, kv := range strings.Split(v, ",") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, val, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return fmt.Errorf("%q: want key=value", kv)
		}
		dec, err := url.PathUnescape(strings.TrimSpace(val))
		if err != nil {
			return fmt.Errorf("%q: %w", kv, err)
		}
		into[k] = dec
	}
	return nil
}

func envMap(environ []string) map[string]string {
	m := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "OTEL_") {
			m[k] = v
		}
	}
	return m
}

func first(env map[string]string, names ...string) string {
	for _, n := range names {
		if v := env[n]; v != "" {
			return v
		}
	}
	return ""
}
