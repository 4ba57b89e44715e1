package feishu

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	larkcore "github.com/larksuite/oapi-sdk-go/v3/core"

	"github.com/switchboard-dev/switchboard/channels"
)

// Feishu's error codes that change what the channel does.
const (
	codeRateLimited     = 99991400 // too many requests: wait and retry
	codeBadAppID        = 10003    // tenant_access_token: invalid app_id
	codeBadAppSecret    = 10014    // tenant_access_token: invalid app_secret
	codeNoPermission    = 99991672 // the app lacks a permission scope
	codeBotNotInChat    = 230002   // the bot is not in the chat
	codeAppNotAvailable = 230013   // the app is not available to the user
)

// ErrCredentials is returned when Feishu refuses the app's credentials.
var ErrCredentials = errors.New("feishu refused the app credentials")

// apiError turns the outcome of an SDK call (op names it) into the
// channel's error: nil when it succeeded; temporary (channels.Temporary)
// for a transport failure, a server error or a rate limit (with the wait
// Feishu asks for, channels.RetryAfter); otherwise permanent, naming the
// key or the console setting to fix when there is one. resp is the raw
// response (nil when there was none), code and msg the body's.
func apiError(op string, err error, resp *larkcore.ApiResp, code int, msg string) error {
	if err != nil {
		var ce larkcore.CodeError
		switch {
		case errors.As(err, &ce): // the SDK's token call failed
			return codeError(op, nil, ce.Code, ce.Msg)
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			return fmt.Errorf("feishu %s: %w", op, err)
		}
		return channels.Temporary(fmt.Errorf("feishu %s: %w", op, err))
	}
	if code == 0 && (resp == nil || resp.StatusCode < 300) {
		return nil
	}
	return codeError(op, resp, code, msg)
}

// codeError is apiError for a response with an error code.
func codeError(op string, resp *larkcore.ApiResp, code int, msg string) error {
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	err := fmt.Errorf("feishu %s: code %d: %s", op, code, msg)
	switch {
	case code == codeRateLimited || status == http.StatusTooManyRequests:
		return channels.RetryAfter(err, retryAfter(resp))
	case status >= 500:
		return channels.Temporary(err)
	case code == codeBadAppID:
		return fmt.Errorf("%s.appId: %w (code %d: %s); copy the App ID from the Feishu developer console", keyPath, ErrCredentials, code, msg)
	case code == codeBadAppSecret:
		return fmt.Errorf("%s.appSecret: %w (code %d: %s); copy the App Secret from the Feishu developer console", keyPath, ErrCredentials, code, msg)
	case code == codeNoPermission:
		return fmt.Errorf("%w; grant the app the permission in the Feishu developer console (Permissions & Scopes) and publish a new version", err)
	case code == codeBotNotInChat:
		return fmt.Errorf("%w; add the bot to the chat", err)
	case code == codeAppNotAvailable:
		return fmt.Errorf("%w; make the app available to the user (the app's availability in the Feishu admin console)", err)
	}
	return err
}

// retryAfter reads how long Feishu asks to wait: x-ogw-ratelimit-reset or
// Retry-After, in seconds (0 when neither is there).
func retryAfter(resp *larkcore.ApiResp) time.Duration {
	if resp == nil {
		return 0
	}
	for _, h := range []string{"x-ogw-ratelimit-reset", "Retry-After"} {
		if s, err := strconv.Atoi(resp.Header.Get(h)); err == nil && s > 0 {
			return time.Duration(s) * time.Second
		}
	}
	return 0
}
