package anthropic

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

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
	var errs []error
	if c.Timeout < 0 {
		errs = append(errs, fmt.Errorf("anthropic provider: timeout: want 0 or more, got %s", c.Timeout))
	}
	if c.MaxRetries < 0 {
		errs = append(errs, fmt.Errorf("anthropic provider: maxRetries: want 0 or more, got %d", c.MaxRetries))
	}
	if u, err := url.Parse(c.APIBase); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("anthropic provider: apiBase %q: want an http or https URL such as %s", c.APIBase, DefaultAPIBase))
	}
	return errors.Join(errs...)
}
