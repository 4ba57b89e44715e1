package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestObservabilityLoads(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `{"observability": {"logs": {"level": "debug", "format": "json"},
		"metrics": {"listen": "127.0.0.1:9464", "maxTurnSeconds": 60}}}`)
	c, err := Load(LoadOptions{Path: path})
	require.NoError(t, err)
	require.Equal(t, ObservabilityConfig{
		Logs:    LogsConfig{Level: LogLevelDebug, Format: LogFormatJSON},
		Metrics: MetricsConfig{Listen: "127.0.0.1:9464", MaxTurnSeconds: 60},
	}, c.Observability)
	used := map[string]bool{}
	for _, e := range c.Report.Entries() {
		used[e.Path] = e.Status == Used
	}
	for _, key := range []string{"observability.logs.level", "observability.logs.format", "observability.metrics.listen"} {
		require.True(t, used[key], key)
	}
}

func TestObservabilityFromEnvironment(t *testing.T) {
	t.Parallel()
	c, err := Load(LoadOptions{Path: writeConfig(t, `{}`), Environ: []string{
		"NANOBOT_OBSERVABILITY__LOGS__FORMAT=json", "NANOBOT_OBSERVABILITY__METRICS__LISTEN=:0"}})
	require.NoError(t, err)
	require.Equal(t, LogFormatJSON, c.Observability.Logs.Format)
	require.Equal(t, ":0", c.Observability.Metrics.Listen)
}

func TestObservabilityBadValues(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `{"observability": {"logs": {"level": "loud", "format": "xml"},
		"metrics": {"listen": "9464", "maxTurnSeconds": -1}}}`)
	_, err := Load(LoadOptions{Path: path})
	require.Error(t, err)
	msg := err.Error()
	for _, want := range []string{
		`observability.logs.level: want one of "debug", "info", "warn", "error", got "loud"`,
		`observability.logs.format: want one of "text", "json", got "xml"`,
		`observability.metrics.listen: want host:port`,
		`observability.metrics.maxTurnSeconds: want a number of seconds from 1`,
	} {
		require.Contains(t, msg, want)
	}
}

func TestCheckListen(t *testing.T) {
	t.Parallel()
	for v, ok := range map[string]bool{"": true, ":0": true, "127.0.0.1:9464": true, "[::1]:80": true,
		"localhost": false, "127.0.0.1:99999": false, "127.0.0.1:http": false} {
		require.Equal(t, ok, CheckListen(v) == "", v)
	}
}
