package telegram_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/telegram"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/telegramfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

const webhookSecret = "hook-s3cret_token"

// webhookHarness runs the channel in webhook mode on a free port.
func webhookHarness(t *testing.T) (*harness, string) {
	h := newHarness(t, func(c *telegram.Config) {
		c.Mode = telegram.ModeWebhook
		c.WebhookURL = "https://bot.example/telegram"
		c.WebhookListenPort = 0
		c.WebhookSecretToken = channels.Secret(webhookSecret)
		c.WebhookMaxConnections = 8
	})
	what, url := h.ch.Address()
	require.Equal(t, "webhook", what)
	require.NotEmpty(t, url)
	return h, url
}

// In webhook mode the channel sets its webhook (the public URL, the
// secret token, only messages) and takes what Telegram posts with the
// secret: answered once, a repeat included; posts without it are refused.
func TestWebhook(t *testing.T) {
	t.Parallel()
	h, url := webhookHarness(t)
	h.answer(channelhost.Echo)
	ctx := testkit.Ctx(t)
	assert.Equal(t, telegramfake.Webhook{URL: "https://bot.example/telegram", SecretToken: webhookSecret, MaxConnections: 8,
		AllowedUpdates: []string{"message"}}, h.fake.Webhook())
	assert.Zero(t, h.fake.Calls("getUpdates"), "no polling in webhook mode")

	id, msgID := h.fake.Push(telegramfake.Incoming{From: ada, Text: "hi"})
	status, body, err := h.fake.Deliver(ctx, url, id, webhookSecret)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status, "%s", body)
	assert.Equal(t, "echo: hi", h.replies(501, 1)[0].Text)
	h.finished(501, msgID)

	status, _, err = h.fake.Deliver(ctx, url, id, webhookSecret)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status, "a repeat is taken...")
	forged, _ := h.fake.Push(telegramfake.Incoming{From: ada, Text: "forged"})
	for _, secret := range []string{"", "wrong"} {
		status, _, err = h.fake.Deliver(ctx, url, forged, secret)
		require.NoError(t, err)
		assert.Equal(t, http.StatusForbidden, status, "secret %q", secret)
	}
	status, _, err = telegramfake.Post(ctx, url, []byte("not json"), webhookSecret)
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadRequest, status)

	later, _ := h.fake.Push(telegramfake.Incoming{From: ada, Text: "later"})
	status, _, err = h.fake.Deliver(ctx, url, later, webhookSecret)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "echo: later", h.replies(501, 2)[1].Text)
	assert.Len(t, h.taken.All(), 2, "...and not answered again; forged posts reach no one")
	assert.NotContains(t, h.logs.String(), webhookSecret)

	require.NoError(t, h.ch.StopReceiving(context.Background()))
	status, _, err = h.fake.Deliver(ctx, url, later, webhookSecret)
	require.NoError(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, status, "Telegram posts it again later")
}

// A webhook URL Telegram refuses stops the start with an error naming the
// key.
func TestWebhookRefused(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	fake.FailNext("setWebhook", telegramfake.Failure{Code: 400, Description: "Bad Request: bad webhook: Failed to resolve host"})
	cfg := testConfig(fake, t.TempDir())
	cfg.Mode, cfg.WebhookURL, cfg.WebhookListenPort, cfg.WebhookSecretToken = telegram.ModeWebhook, "https://nowhere.invalid/tg", 0, "s"
	ch, err := telegram.New(cfg, channels.Deps{})
	require.NoError(t, err)
	err = ch.Start(testkit.Ctx(t))
	require.ErrorContains(t, err, "channels.telegram.webhookUrl: ")
	assert.ErrorContains(t, err, "Failed to resolve host")
	what, where := ch.Address()
	assert.Equal(t, "webhook", what)
	assert.Empty(t, where, "not listening")
}
