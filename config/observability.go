package config

import (
	"net"
	"strconv"
	"strings"
)

// The values of LogsConfig.Level and LogsConfig.Format.
const (
	LogLevelDebug = "debug"
	LogLevelInfo  = "info"
	LogLevelWarn  = "warn"
	LogLevelError = "error"

	LogFormatText = "text"
	LogFormatJSON = "json"
)

// LogLevels lists the values of LogsConfig.Level, most verbose first.
func LogLevels() []string { return []string{LogLevelDebug, LogLevelInfo, LogLevelWarn, LogLevelError} }

// LogFormats lists the values of LogsConfig.Format.
func LogFormats() []string { return []string{LogFormatText, LogFormatJSON} }

// ObservabilityConfig is the "observability" section: switchboard's own
// settings of what a running process tells its operator. nanobot has no
// such section and ignores it.
type ObservabilityConfig struct {
	// Logs are the settings of the log lines the commands that run long
	// (run, recv, watch, console, mcp) write to stderr.
	Logs LogsConfig `json:"logs"`
	// Metrics are the settings of the Prometheus metrics of `run`.
	Metrics MetricsConfig `json:"metrics"`
	// Tracing exports OpenTelemetry spans (off by default).
	Tracing TracingConfig `json:"tracing"`
}

// LogsConfig is the "observability.logs" section.
type LogsConfig struct {
	// Level is the lowest level logged: "debug", "info", "warn" or
	// "error"; "" leaves each command its own ("info" for run, "warn"
	// for the others). Message text is logged only at "debug".
	Level string `json:"level"`
	// Format is "text" (key=value lines, the default) or "json" (one JSON
	// object per line).
	Format string `json:"format"`
}

// MetricsConfig is the "observability.metrics" section.
type MetricsConfig struct {
	// Listen is the address ("127.0.0.1:9464", ":9464") where `run` serves
	// /metrics, /healthz and /readyz over HTTP; "" (the default) serves
	// nothing and sets no metrics up.
	Listen string `json:"listen"`
	// MaxTurnSeconds is how long a turn may run before /readyz says the
	// agent loop is wedged; 0 means the default (DefaultMaxTurnSeconds).
	MaxTurnSeconds float64 `json:"maxTurnSeconds"`
}

// DefaultMaxTurnSeconds is the age of the oldest turn in progress past
// which /readyz fails when observability.metrics.maxTurnSeconds is 0.
const DefaultMaxTurnSeconds = 300

// maxTurnRange bounds observability.metrics.maxTurnSeconds.
var maxTurnRange = SecondsRange{Min: 1, Max: Day, Zero: "the default (300 s)"}

// CheckLogLevel returns what is wrong with a log level ("" when it is one
// of LogLevels; "" itself is fine too: the command's own).
func CheckLogLevel(v string) string {
	return checkOneOf(strings.ToLower(v), LogLevels())
}

// CheckLogFormat returns what is wrong with a log format ("" when it is
// one of LogFormats, or "").
func CheckLogFormat(v string) string {
	return checkOneOf(strings.ToLower(v), LogFormats())
}

// CheckListen returns what is wrong with a listen address ("" when it is
// host:port with a port from 0 to 65535, or "").
func CheckListen(v string) string {
	if v == "" {
		return ""
	}
	_, port, err := net.SplitHostPort(v)
	if err != nil {
		return "want host:port (127.0.0.1:9464, or :9464 for every interface), got " + strconv.Quote(v)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "want a port from 0 to 65535, got " + strconv.Quote(v)
	}
	return ""
}

func checkOneOf(v string, allowed []string) string {
	if v == "" {
		return ""
	}
	for _, a := range allowed {
		if v == a {
			return ""
		}
	}
	quoted := make([]string, len(allowed))
	for i, a := range allowed {
		quoted[i] = strconv.Quote(a)
	}
	return "want one of " + strings.Join(quoted, ", ") + ", got " + strconv.Quote(v)
}

func (o ObservabilityConfig) validate(p *problems) {
	const prefix = "observability."
	if msg := CheckLogLevel(o.Logs.Level); msg != "" {
		p.invalid(prefix+"logs.level", "%s", msg)
	}
	if msg := CheckLogFormat(o.Logs.Format); msg != "" {
		p.invalid(prefix+"logs.format", "%s", msg)
	}
	if msg := CheckListen(o.Metrics.Listen); msg != "" {
		p.invalid(prefix+"metrics.listen", "%s", msg)
	}
	if msg := maxTurnRange.Problem(o.Metrics.MaxTurnSeconds); msg != "" {
		p.invalid(prefix+"metrics.maxTurnSeconds", "%s", msg)
	}
	o.Tracing.validate(p)
}
