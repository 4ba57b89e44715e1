package feishu_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/feishu"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/feishufake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// webhookHarness runs the channel in webhook mode on a free port.
func webhookHarness(t *testing.T, token, encryptKey string) (*harness, string) {
	h := newHarness(t, func(c *feishu.Config) {
		c.Mode = feishu.ModeWebhook
		c.Listen = "127.0.0.1:0"
		c.VerificationToken = channels.Secret(token)
		c.EncryptKey = channels.Secret(encryptKey)
	})
	what, url := h.ch.Address()
	require.Equal(t, "webhook", what)
	require.NotEmpty(t, url)
	return h, url
}

func TestWebhook(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name       string
		encryptKey string
	}{
		{"plain", ""},
		{"encrypted and signed", "enc-key"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, url := webhookHarness(t, "v-token", tt.encryptKey)
			h.answer(channelhost.Echo)
			ctx := testkit.Ctx(t)

			// Feishu's URL check when the event URL is saved.
			challenge := []byte(`{"type":"url_verification","challenge":"c-123","token":"v-token"}`)
			status, body, err := feishufake.PostEvent(ctx, url, challenge, tt.encryptKey)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, status, "%s", body)
			var got struct{ Challenge string }
			require.NoError(t, json.Unmarshal(body, &got))
			assert.Equal(t, "c-123", got.Challenge)

			d := feishufake.Delivery{Token: "v-token", EncryptKey: tt.encryptKey}
			status, body, err = h.fake.Deliver(ctx, url, feishufake.Event{MessageID: "om_1", Content: feishufake.Text("hi")}, d)
			require.NoError(t, err)
			require.Equal(t, http.StatusOK, status, "%s", body)
			assert.Equal(t, "echo: hi", h.replies("om_1", 1)[0].Text())

			// A repeat is taken and not answered again.
			status, _, err = h.fake.Deliver(ctx, url, feishufake.Event{MessageID: "om_1", Content: feishufake.Text("hi")}, d)
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, status)
			h.finished("om_1")

			// Posts not from Feishu are refused.
			d.Token = "forged"
			status, _, err = h.fake.Deliver(ctx, url, feishufake.Event{MessageID: "om_forged", Content: feishufake.Text("x")}, d)
			require.NoError(t, err)
			assert.NotEqual(t, http.StatusOK, status, "a wrong token")
			if tt.encryptKey != "" {
				status, _, err = feishufake.PostEvent(ctx, url, feishufake.Event{MessageID: "om_plain"}.Payload("v-token"), "")
				require.NoError(t, err)
				assert.NotEqual(t, http.StatusOK, status, "not encrypted")
				status, _, err = feishufake.PostEvent(ctx, url, feishufake.Event{MessageID: "om_wrongkey"}.Payload("v-token"), "other-key")
				require.NoError(t, err)
				assert.NotEqual(t, http.StatusOK, status, "signed with another key")
			}
			status, _, err = feishufake.PostEvent(ctx, url, []byte(`{"type":"url_verification","challenge":"c","token":"forged"}`), tt.encryptKey)
			require.NoError(t, err)
			assert.NotEqual(t, http.StatusOK, status, "a challenge with a wrong token")

			assert.Len(t, h.taken.All(), 1, "only the event from Feishu reached the agent")
		})
	}
}
