package feishu_test

import (
	"errors"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/feishu"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/feishufake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A lost long connection is connected again, and events flow again.
func TestLongConnectionReconnects(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	h.push(feishufake.Event{MessageID: "om_1", Content: feishufake.Text("before")})
	h.replies("om_1", 1)
	h.fake.DropConnections()
	require.NoError(t, h.fake.WaitConnections(testkit.Ctx(t), 2))
	h.push(feishufake.Event{MessageID: "om_2", Content: feishufake.Text("after")})
	assert.Equal(t, "echo: after", h.replies("om_2", 1)[0].Text())
}

// The long connection pings at once and at the interval the server says.
func TestLongConnectionPings(t *testing.T) {
	t.Parallel()
	fake := feishufake.New(feishufake.Options{PingInterval: 1})
	t.Cleanup(fake.Close)
	startHarness(t, fake, testConfig(fake, t.TempDir()))
	require.NoError(t, fake.WaitPings(testkit.Ctx(t), 2))
}

// Stop closes the long connection.
func TestStopClosesTheLongConnection(t *testing.T) {
	t.Parallel()
	fake := feishufake.New(feishufake.Options{})
	t.Cleanup(fake.Close)
	b := bus.New(4)
	ch, err := feishu.New(testConfig(fake, t.TempDir()), channels.Deps{Bus: b})
	require.NoError(t, err)
	require.NoError(t, ch.Start(testkit.Ctx(t)))
	require.NoError(t, fake.WaitLive(testkit.Ctx(t), 1))
	require.NoError(t, ch.Stop(testkit.Ctx(t)))
	require.NoError(t, fake.WaitLive(testkit.Ctx(t), 0))
	assert.NoError(t, ch.Stop(testkit.Ctx(t)), "a second Stop does nothing")
}

// Credentials Feishu refuses stop the start with an error naming the key;
// Feishu being busy does not: the channel connects once it can.
func TestStartErrors(t *testing.T) {
	t.Parallel()
	t.Run("credentials refused", func(t *testing.T) {
		t.Parallel()
		for _, mode := range []string{feishu.ModeWebSocket, feishu.ModeWebhook} {
			fake := feishufake.New(feishufake.Options{AppID: "cli_" + mode})
			t.Cleanup(fake.Close)
			cfg := testConfig(fake, t.TempDir())
			cfg.AppSecret = "wrong"
			cfg.Mode, cfg.Listen, cfg.VerificationToken = mode, "127.0.0.1:0", "v"
			ch, err := feishu.New(cfg, channels.Deps{Bus: bus.New(1)})
			require.NoError(t, err)
			err = ch.Start(testkit.Ctx(t))
			require.ErrorIs(t, err, feishu.ErrCredentials, mode)
			assert.ErrorContains(t, err, "channels.feishu.appSecret:", mode)
			assert.NotContains(t, err.Error(), "wrong", "the secret is not in the error")
		}
	})
	t.Run("feishu busy", func(t *testing.T) {
		t.Parallel()
		fake := feishufake.New(feishufake.Options{})
		t.Cleanup(fake.Close)
		fake.FailNext(feishufake.CallEndpoint, feishufake.Failure{Code: 1, Msg: "system busy"})
		h := startHarness(t, fake, testConfig(fake, t.TempDir()))
		h.answer(channelhost.Echo)
		h.push(feishufake.Event{MessageID: "om_1", Content: feishufake.Text("hi")})
		h.replies("om_1", 1)
		assert.Contains(t, h.logs.String(), "not connected yet; trying again")
	})
	t.Run("connection refused for good", func(t *testing.T) {
		t.Parallel()
		fake := feishufake.New(feishufake.Options{})
		t.Cleanup(fake.Close)
		fake.FailNext(feishufake.CallEndpoint, feishufake.Failure{Code: 1000040350, Msg: "exceed connection limit"})
		ch, err := feishu.New(testConfig(fake, t.TempDir()), channels.Deps{Bus: bus.New(1), Logger: slog.New(slog.DiscardHandler)})
		require.NoError(t, err)
		err = ch.Start(testkit.Ctx(t))
		require.Error(t, err)
		assert.False(t, errors.Is(err, channels.ErrTemporary))
		assert.ErrorContains(t, err, "channels.feishu.appId")
	})
}
