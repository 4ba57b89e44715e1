package anthropic

import (
	"net/http"
	"time"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/config"
)

// Defaults of Config.
const (
	// DefaultAPIBase is Anthropic's endpoint.
	DefaultAPIBase = "https://api.anthropic.com"
	// DefaultTimeout bounds one request attempt.
	DefaultTimeout = config.DefaultProviderTimeout
	// DefaultMaxTokens caps an answer when the request sets no cap (the
	// API requires one).
	DefaultMaxTokens = config.DefaultMaxTokens
)

// Config configures a Provider.
type Config struct {
	// APIKey is sent as the x-api-key header to APIBase, and nowhere else.
	APIKey string
	// APIBase is the server's base URL ("" = DefaultAPIBase).
	APIBase string
	// Model is the model to use ("claude-sonnet-4-5"); it overrides
	// Request.Model. One of the two is required.
	Model string
	// Timeout bounds each request attempt (default DefaultTimeout).
	Timeout time.Duration
	// MaxRetries is how often a failed attempt is retried (0 = never).
	MaxRetries int
	// ExtraHeaders are sent with every request.
	ExtraHeaders map[string]string
	// HTTPClient, when set, makes the requests (tests, proxies).
	HTTPClient *http.Client
}

// FromConfig returns the Config of a "providers.<name>" section.
func FromConfig(pc config.ProviderConfig) Config {
	return Config{APIKey: pc.APIKey, APIBase: pc.APIBase, Model: pc.Model, ExtraHeaders: pc.ExtraHeaders,
		Timeout: pc.TimeoutDuration(), MaxRetries: pc.MaxRetries}
}

func (c *Config) setDefaults() {
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.APIBase == "" {
		c.APIBase = DefaultAPIBase
	}
}

// Validate reports settings out of range.
func (c *Config) Validate() error {
	return agentloop.CheckEndpoint("anthropic", c.Timeout, c.MaxRetries, c.APIBase, DefaultAPIBase)
}
