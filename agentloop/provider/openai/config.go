package openai

import (
	"net/http"
	"time"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/config"
)

// DefaultTimeout bounds one request attempt when Config.Timeout is zero.
const DefaultTimeout = config.DefaultProviderTimeout

// DefaultAPIBase is OpenAI's endpoint, where requests go when
// Config.APIBase is empty.
const DefaultAPIBase = "https://api.openai.com/v1"

// Config configures a Provider.
type Config struct {
	// APIKey is sent as a bearer token to APIBase, and nowhere else; ""
	// sends none. The library's environment variables (OPENAI_API_KEY,
	// OPENAI_BASE_URL, ...) are not read: the caller decides.
	APIKey string
	// APIBase is the server's base URL, such as "http://localhost:8000/v1"
	// ("" = DefaultAPIBase).
	APIBase string
	// ExtraHeaders are sent with every request.
	ExtraHeaders map[string]string
	// Model is the model to use; it overrides Request.Model (a provider's
	// model overrides agents.defaults.model). One of the two is required.
	Model string
	// Timeout bounds each request attempt (default DefaultTimeout).
	Timeout time.Duration
	// MaxRetries is how often a failed attempt is retried (0 = never).
	MaxRetries int
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
	return agentloop.CheckEndpoint("openai", c.Timeout, c.MaxRetries, c.APIBase, "http://localhost:8000/v1")
}
