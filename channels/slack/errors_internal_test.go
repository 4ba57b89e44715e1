package slack

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels"
)

func TestAPIErrorClassification(t *testing.T) {
	tests := []struct {
		name      string
		err       error
		key       string
		temporary bool
		wait      time.Duration
		contains  string
	}{
		{name: "success"},
		{name: "rate limit", err: &slack.RateLimitedError{RetryAfter: 7 * time.Second}, temporary: true, wait: 7 * time.Second},
		{name: "ratelimited code", err: slack.SlackErrorResponse{Err: "ratelimited"}, temporary: true},
		{name: "server error", err: slack.StatusCodeError{Code: 502, Status: "502 Bad Gateway"}, temporary: true},
		{name: "client error", err: slack.StatusCodeError{Code: 404, Status: "404 Not Found"}, contains: "404"},
		{name: "network", err: &url.Error{Op: "Post", URL: "https://slack.com/api/chat.postMessage", Err: errors.New("connection reset")},
			temporary: true, contains: "connection reset"},
		{name: "cancelled", err: context.Canceled, contains: "canceled"},
		{name: "internal_error", err: slack.SlackErrorResponse{Err: "internal_error"}, temporary: true},
		{name: "bad bot token", err: slack.SlackErrorResponse{Err: "invalid_auth"}, key: "botToken", contains: "channels.slack.botToken: slack refused"},
		{name: "revoked app token", err: slack.SlackErrorResponse{Err: "token_revoked"}, key: "appToken",
			contains: "channels.slack.appToken: slack refused the token (op: token_revoked); create an app-level token"},
		{name: "missing scope", err: slack.SlackErrorResponse{Err: "missing_scope", Needed: "reactions:write"}, contains: "(needed: reactions:write)"},
		{name: "other refusal", err: slack.SlackErrorResponse{Err: "is_archived"}, contains: "slack op: is_archived"},
		{name: "not slack's", err: errors.New("refusing to send the token"), contains: "refusing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key := tt.key
			if key == "" {
				key = "botToken"
			}
			err := apiError("op", key, tt.err)
			if tt.err == nil {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, tt.temporary, channels.IsTemporary(err), "%v", err)
			assert.Equal(t, tt.wait, channels.RetryAfterOf(err))
			assert.ErrorContains(t, err, tt.contains)
			if tt.key != "" {
				assert.ErrorIs(t, err, ErrCredentials)
			}
		})
	}
}

func TestTSTime(t *testing.T) {
	assert.Equal(t, time.Unix(1750000000, 100_000).UTC(), tsTime("1750000000.000100"))
	assert.WithinDuration(t, time.Now(), tsTime("nonsense"), time.Minute)
}
