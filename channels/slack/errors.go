package slack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"

	"github.com/slack-go/slack"

	"github.com/switchboard-dev/switchboard/channels"
)

// ErrCredentials is returned when Slack refuses a token.
var ErrCredentials = errors.New("slack refused the token")

// Slack's error codes that change what the channel does.
var (
	// credentialCodes say the token is wrong, revoked or of another kind.
	credentialCodes = map[string]bool{"invalid_auth": true, "not_authed": true, "token_revoked": true,
		"token_expired": true, "account_inactive": true, "not_allowed_token_type": true, "invalid_token": true}
	// temporaryCodes are worth trying again.
	temporaryCodes = map[string]bool{"ratelimited": true, "internal_error": true, "fatal_error": true,
		"service_unavailable": true, "request_timeout": true}
)

// tokenHelp says where each token comes from.
var tokenHelp = map[string]string{
	"botToken": "copy the Bot User OAuth Token (xoxb-...) from OAuth & Permissions in the app's settings, and install the app to the workspace",
	"appToken": "create an app-level token (xapp-...) with the connections:write scope in Basic Information → App-Level Tokens, and turn Socket Mode on",
}

// apiError turns the outcome of a Web API call (op names it; tokenKey is
// the key of the token it was made with, "botToken" or "appToken") into
// the channel's error: nil when it succeeded; temporary
// (channels.Temporary) for a transport failure, a server error or a rate
// limit (with the wait Slack asks for, channels.RetryAfter); otherwise
// permanent, naming the key or the app setting to fix when there is one.
func apiError(op, tokenKey string, err error) error {
	if err == nil {
		return nil
	}
	wrapped := fmt.Errorf("slack %s: %w", op, err)
	var rl *slack.RateLimitedError
	var sc slack.StatusCodeError
	var se slack.SlackErrorResponse
	var ue *url.Error
	var ne net.Error
	switch {
	case errors.As(err, &rl):
		return channels.RetryAfter(wrapped, rl.RetryAfter)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return wrapped
	case errors.As(err, &sc):
		if sc.Retryable() {
			return channels.Temporary(wrapped)
		}
		return wrapped
	case errors.As(err, &se):
		return codeError(op, tokenKey, se, wrapped)
	case errors.As(err, &ue), errors.As(err, &ne), errors.Is(err, io.ErrUnexpectedEOF):
		return channels.Temporary(wrapped) // the network
	}
	return wrapped
}

// codeError is apiError for an answer with an error code.
func codeError(op, tokenKey string, se slack.SlackErrorResponse, wrapped error) error {
	switch code := se.Err; {
	case temporaryCodes[code]:
		return channels.Temporary(wrapped)
	case credentialCodes[code]:
		return fmt.Errorf("%s.%s: %w (%s: %s); %s", keyPath, tokenKey, ErrCredentials, op, code, tokenHelp[tokenKey])
	case code == "missing_scope":
		needed := se.Needed
		if needed == "" {
			needed = "it needs"
		}
		return fmt.Errorf("%w (needed: %s); add the scope to the bot in OAuth & Permissions and reinstall the app", wrapped, needed)
	case code == "not_in_channel":
		return fmt.Errorf("%w; invite the bot to the channel (/invite @the-bot)", wrapped)
	case code == "channel_not_found":
		return fmt.Errorf("%w; the chat id names no conversation the bot can see: invite the bot, or check the id", wrapped)
	}
	return wrapped
}
