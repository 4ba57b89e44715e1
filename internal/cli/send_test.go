package cli

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDeadline(t *testing.T) {
	now := time.Date(2026, 4, 26, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in      string
		want    time.Time
		wantErr string
	}{
		{in: "10m", want: now.Add(10 * time.Minute)},
		{in: "1h30m", want: now.Add(90 * time.Minute)},
		{in: "2026-04-26T11:00:00Z", want: now.Add(time.Hour)},
		{in: "2026-04-26T12:00:00+01:00", want: now.Add(time.Hour)},
		{in: "2026-04-26T11:00:00.000000+00:00", want: now.Add(time.Hour)},
		{in: "0s", wantErr: "duration 0s: want more than 0"},
		{in: "-5m", wantErr: "duration -5m: want more than 0"},
		{in: "soon", wantErr: `got "soon"`},
		{in: "2026-13-01T00:00:00Z", wantErr: "want an RFC 3339 time"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseDeadline(tt.in, now)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.True(t, tt.want.Equal(got), "got %v", got)
		})
	}
}

func TestSendRequest(t *testing.T) {
	now := time.Now()
	f := sendFlags{from: "a", to: "b", kind: "task", text: "x", ttl: 4, cbChannel: "feishu", cbSK: "feishu:oc_1"}
	req, err := f.request(now, true)
	require.NoError(t, err)
	assert.Equal(t, "b", req.To)
	assert.Equal(t, 4, req.TTL)
	assert.Equal(t, "feishu", req.Callback.Channel)
	assert.Equal(t, "feishu:oc_1", req.Callback.SessionID)

	// An unset --ttl leaves the budget to the config.
	f = sendFlags{from: "a", to: "b", kind: "message", text: "x"}
	req, err = f.request(now, false)
	require.NoError(t, err)
	assert.Zero(t, req.TTL)

	// A task_update needs no content.
	f = sendFlags{from: "a", to: "b", kind: "task_update", taskID: "t"}
	_, err = f.request(now, false)
	require.NoError(t, err)

	// Every refusal is a usage error.
	f = sendFlags{from: "a", to: "b", kind: "message"}
	_, err = f.request(now, false)
	assert.True(t, isUsage(err))
}
