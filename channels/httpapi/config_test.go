package httpapi_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels/httpapi"
)

// TestConfigValidate: a listen address other than loopback wants a
// token; every error names its key.
func TestConfigValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		edit func(*httpapi.Config)
		err  string
	}{
		{"defaults", func(*httpapi.Config) {}, ""},
		{"localhost", func(c *httpapi.Config) { c.Listen = "localhost:8900" }, ""},
		{"ipv6 loopback", func(c *httpapi.Config) { c.Listen = "[::1]:8900" }, ""},
		{"every interface, no token", func(c *httpapi.Config) { c.Listen = ":8900" },
			"channels.http.apiKey: required when listen (:8900) is not a loopback address"},
		{"public address, no token", func(c *httpapi.Config) { c.Listen = "0.0.0.0:8900" }, "channels.http.apiKey: required"},
		{"public address, a token", func(c *httpapi.Config) { c.Listen = "0.0.0.0:8900"; c.APIKey = "t" }, ""},
		{"bad listen", func(c *httpapi.Config) { c.Listen = "8900" }, `channels.http.listen: want host:port (127.0.0.1:8900), got "8900"`},
		{"no wait", func(c *httpapi.Config) { c.WaitSeconds = 0 }, "channels.http.waitSeconds: want seconds above 0"},
		{"tiny body", func(c *httpapi.Config) { c.MaxBodyBytes = 10 }, "channels.http.maxBodyBytes: want from 1024"},
		{"nobody allowed", func(c *httpapi.Config) { c.Enabled = true; c.AllowFrom = []string{} }, "channels.http.allowFrom: empty list denies every sender"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := httpapi.DefaultConfig()
			tt.edit(&c)
			err := c.Validate("channels.http")
			if tt.err == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.err)
		})
	}
}
