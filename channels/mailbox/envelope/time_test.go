package envelope_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

func TestParseTime(t *testing.T) {
	base := time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)
	micro := base.Add(123456 * time.Microsecond)
	tests := []struct {
		name, in string
		want     time.Time // zero: an error is expected
	}{
		{"RFC 3339 Z", "2026-04-26T10:00:00Z", base},
		{"+00:00", "2026-04-26T10:00:00+00:00", base},
		{"microseconds", "2026-04-26T10:00:00.123456+00:00", micro},
		{"milliseconds Z", "2026-04-26T10:00:00.123Z", base.Add(123 * time.Millisecond)},
		{"other zone", "2026-04-26T18:00:00.123456+08:00", micro},
		{"negative zone", "2026-04-26T05:00:00-05:00", base},
		{"nanoseconds are cut to microseconds", "2026-04-26T10:00:00.123456789Z", micro},
		{"no zone is UTC", "2026-04-26T10:00:00.123456", micro},
		{"no zone, no fraction", "2026-04-26T10:00:00", base},
		{"space separator", "2026-04-26 10:00:00.123456+00:00", micro},
		{"space, no zone", "2026-04-26 10:00:00", base},
		{"empty", "", time.Time{}},
		{"words", "yesterday", time.Time{}},
		{"date only", "2026-04-26", time.Time{}},
		{"month 13", "2026-13-01T00:00:00Z", time.Time{}},
		{"hour 24", "2026-04-26T24:00:00Z", time.Time{}},
		{"unix seconds", "1745659200", time.Time{}},
		{"five-digit year", "10000-01-01T00:00:00Z", time.Time{}},
		{"year 10000 in UTC", "9999-12-31T23:00:00-05:00", time.Time{}},
		{"year 0 in UTC", "0001-01-01T00:00:00+01:00", time.Time{}},
		{"trailing text", "2026-04-26T10:00:00Z junk", time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := envelope.ParseTime(tt.in)
			if tt.want.IsZero() {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.True(t, tt.want.Equal(got.Time), "got %v, want %v", got, tt.want)
			assert.Equal(t, time.UTC, got.Location())
		})
	}
}

func TestTimeJSON(t *testing.T) {
	tm := envelope.NewTime(time.Date(2026, 4, 26, 18, 0, 0, 0, time.FixedZone("CST", 8*3600)))
	data, err := json.Marshal(tm)
	require.NoError(t, err)
	assert.Equal(t, `"2026-04-26T10:00:00.000000+00:00"`, string(data), "written as Python's isoformat, in UTC")
	assert.Equal(t, "2026-04-26T10:00:00.000000+00:00", tm.String())

	var back envelope.Time
	require.NoError(t, json.Unmarshal(data, &back))
	assert.True(t, back.Equal(tm.Time))

	data, err = json.Marshal(envelope.Time{})
	require.NoError(t, err)
	assert.Equal(t, "null", string(data), "the zero time is null")

	back = tm
	require.NoError(t, json.Unmarshal([]byte("null"), &back))
	assert.True(t, back.IsZero(), "null reads as the zero time")

	assert.Error(t, json.Unmarshal([]byte("1745659200"), &back), "a number is not a timestamp")
	assert.Error(t, json.Unmarshal([]byte(`"soon"`), &back))
}
