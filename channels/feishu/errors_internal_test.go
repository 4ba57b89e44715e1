package feishu

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	larkcore "github.com/larksuite/oapi-sdk-go/v3/core"
	"github.com/stretchr/testify/assert"

	"github.com/switchboard-dev/switchboard/channels"
)

func TestAPIErrorClassification(t *testing.T) {
	resp := func(status int, header http.Header) *larkcore.ApiResp {
		return &larkcore.ApiResp{StatusCode: status, Header: header}
	}
	tests := []struct {
		name      string
		err       error
		resp      *larkcore.ApiResp
		code      int
		temporary bool
		wait      time.Duration
		contains  string
	}{
		{name: "success", resp: resp(200, nil)},
		{name: "transport failure", err: errors.New("connection reset"), temporary: true, contains: "connection reset"},
		{name: "cancelled", err: context.Canceled, contains: "canceled"},
		{name: "rate limit by code", resp: resp(400, http.Header{"X-Ogw-Ratelimit-Reset": {"7"}}), code: 99991400,
			temporary: true, wait: 7 * time.Second},
		{name: "HTTP 429 with Retry-After", resp: resp(429, http.Header{"Retry-After": {"3"}}), code: 1,
			temporary: true, wait: 3 * time.Second},
		{name: "server error", resp: resp(502, nil), code: 2200, temporary: true},
		{name: "bad secret from the token call", err: larkcore.CodeError{Code: 10014, Msg: "app secret invalid"},
			contains: "channels.feishu.appSecret:"},
		{name: "bad app id", resp: resp(200, nil), code: 10003, contains: "channels.feishu.appId:"},
		{name: "missing permission", resp: resp(400, nil), code: 99991672, contains: "Permissions & Scopes"},
		{name: "other refusal", resp: resp(400, nil), code: 230001, contains: "code 230001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := apiError("reply", tt.err, tt.resp, tt.code, "msg")
			if tt.contains == "" && !tt.temporary {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, tt.temporary, channels.IsTemporary(err), "%v", err)
			assert.Equal(t, tt.wait, channels.RetryAfterOf(err))
			assert.ErrorContains(t, err, tt.contains)
		})
	}
}
