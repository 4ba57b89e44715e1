package config

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSecondsRange(t *testing.T) {
	t.Parallel()
	period := SecondsRange{Min: MinPeriod, Max: Day}
	retention := SecondsRange{Min: 1, Max: Year, Zero: "no limit"}
	for _, tt := range []struct {
		r    SecondsRange
		v    float64
		want string
	}{
		{period, 5, ""},
		{period, 0.01, ""},
		{period, Day, ""},
		{period, 1e-9, "want a number of seconds from 0.01 to 86400 (1 day), got 1e-09"},
		{period, 1e10, "want a number of seconds from 0.01 to 86400 (1 day), got 1e+10"},
		{period, 0, "want a number of seconds from 0.01 to 86400 (1 day), got 0"},
		{period, math.NaN(), "want a number of seconds from 0.01 to 86400 (1 day), got NaN"},
		{retention, 0, ""},
		{retention, -1, "want a number of seconds from 1 to 31536000 (1 year), or 0 for no limit, got -1"},
		{SecondsRange{Min: 1, Max: 2 * Hour}, 1e300, "want a number of seconds from 1 to 7200 (2 hours), got 1e+300"},
	} {
		assert.Equal(t, tt.want, tt.r.Problem(tt.v), "%v in %+v", tt.v, tt.r)
	}
}

// TestProviderTimeoutBounded: a timeout that would overflow a Duration
// (or is too short to ever succeed) is an error naming the key.
func TestProviderTimeoutBounded(t *testing.T) {
	t.Parallel()
	for _, v := range []float64{1e10, 1e-9} {
		c := Default()
		c.Providers["openai"] = ProviderConfig{Timeout: v}
		err := c.Validate()
		if assert.Error(t, err, "timeout %v", v) {
			assert.Contains(t, err.Error(), "providers.openai.timeout: want a number of seconds from 0.01 to 86400 (1 day), or 0 for the default (60 s)")
		}
	}
	c := Default()
	c.Providers["openai"] = ProviderConfig{Timeout: 0}
	assert.NoError(t, c.Validate())
}
