package otlp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/config"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	on := config.TracingConfig{Enabled: true, Endpoint: "http://collector:4318/", ServiceName: "svc",
		Headers: map[string]string{"A": "1"}}
	for _, tt := range []struct {
		name    string
		cfg     config.TracingConfig
		env     []string
		on      bool
		url     string
		service string
		err     string
	}{
		{name: "off by default"},
		{name: "config", cfg: on, on: true, url: "http://collector:4318/v1/traces", service: "svc"},
		{name: "config full path", cfg: config.TracingConfig{Enabled: true, Endpoint: "http://c/x/traces"}, on: true, url: "http://c/x/traces", service: "switchboard"},
		{name: "env endpoint", env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://e:4318", "OTEL_SERVICE_NAME=s2"}, on: true, url: "http://e:4318/v1/traces", service: "s2"},
		{name: "env traces endpoint wins", cfg: on, env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://e:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://t/p"}, on: true, url: "http://t/p", service: "svc"},
		{name: "exporter otlp", env: []string{"OTEL_TRACES_EXPORTER=otlp"}, on: true, url: "http://localhost:4318/v1/traces", service: "switchboard"},
		{name: "exporter none", cfg: on, env: []string{"OTEL_TRACES_EXPORTER=none"}},
		{name: "sdk disabled", cfg: on, env: []string{"OTEL_SDK_DISABLED=true"}},
		{name: "unknown exporter", env: []string{"OTEL_TRACES_EXPORTER=zipkin"}, err: `OTEL_TRACES_EXPORTER="zipkin": want otlp or none`},
		{name: "grpc", cfg: on, env: []string{"OTEL_EXPORTER_OTLP_PROTOCOL=grpc"}, err: "http/protobuf only"},
		{name: "bad endpoint", env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=collector:4318"}, err: "want an http:// or https:// URL"},
		{name: "bad headers", cfg: on, env: []string{"OTEL_EXPORTER_OTLP_HEADERS=novalue"}, err: `OTEL_EXPORTER_OTLP_HEADERS: "novalue": want key=value`},
		{name: "bad timeout", cfg: on, env: []string{"OTEL_EXPORTER_OTLP_TIMEOUT=soon"}, err: "want a whole number of milliseconds"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, ok, err := Resolve(tt.cfg, tt.env)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.on, ok)
			if ok {
				assert.Equal(t, tt.url, s.URL)
				assert.Equal(t, tt.service, s.ServiceName)
			}
		})
	}
}

func TestResolveHeadersAndTimeout(t *testing.T) {
	t.Parallel()
	s, ok, err := Resolve(config.TracingConfig{Enabled: true, Headers: map[string]string{"A": "1", "B": "2"}},
		[]string{"OTEL_EXPORTER_OTLP_HEADERS=B=x%20y, C=3", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT=1500"})
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, map[string]string{"A": "1", "B": "x y", "C": "3"}, s.Headers)
	assert.Equal(t, 1500*time.Millisecond, s.Timeout)
}
