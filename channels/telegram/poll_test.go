package telegram_test

import (
	"context"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/telegram"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/telegramfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// The offset moves past an update only once its message is journaled:
// while the agent does not take messages (the bus is full), the update
// stays with Telegram.
func TestOffsetFollowsTheJournal(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	cfg := testConfig(fake, t.TempDir())
	b := bus.New(1) // room for one message
	ch, err := telegram.New(cfg, channels.Deps{Bus: b})
	require.NoError(t, err)
	require.NoError(t, ch.Start(testkit.Ctx(t)))
	t.Cleanup(func() { b.Close(); _ = ch.Stop(context.Background()) })

	first, _ := fake.Push(telegramfake.Incoming{From: ada, Text: "one"})
	require.NoError(t, fake.WaitConfirmed(testkit.Ctx(t), first+1), "the first is on the bus: the next poll confirms it")
	polls := fake.Polls()
	second, _ := fake.Push(telegramfake.Incoming{From: ada, Text: "two"})
	require.NoError(t, fake.WaitPolls(testkit.Ctx(t), polls+1), "the channel has the second")
	assert.Equal(t, first+1, fake.Confirmed(), "the second waits for room on the bus: it stays with Telegram")
	in, err := b.ConsumeInbound(testkit.Ctx(t))
	require.NoError(t, err)
	assert.Equal(t, "one", in.Content)
	require.NoError(t, fake.WaitConfirmed(testkit.Ctx(t), second+1), "once the bus took it")
}

// A 429 on getUpdates is waited out as Telegram asks, a conflict (a
// webhook set elsewhere) is retried, and a webhook set before the start is
// deleted, as polling needs.
func TestPollFailures(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	fake.FailNext("getUpdates", telegramfake.Failure{Code: 429, RetryAfter: 1},
		telegramfake.Failure{Code: 409, Description: "Conflict: terminated by other getUpdates request"})
	start := time.Now()
	h := startHarness(t, fake, testConfig(fake, t.TempDir()))
	h.answer(channelhost.Echo)
	h.say("hello")
	assert.Equal(t, "echo: hello", h.replies(501, 1)[0].Text)
	assert.GreaterOrEqual(t, time.Since(start), time.Second, "retry_after waited out")
	assert.Contains(t, h.logs.String(), "the server asks to wait 1s")
	assert.Contains(t, h.logs.String(), "terminated by other getUpdates request")
	assert.GreaterOrEqual(t, fake.Calls("deleteWebhook"), 1)
}

// A token Telegram refuses stops the start with an error naming the key;
// the token is in no error and no log.
func TestTokenRefused(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	cfg := testConfig(fake, t.TempDir())
	cfg.Token = "7000001:wrong-s3cret-token"
	logs := &testkit.Buffer{}
	ch, err := telegram.New(cfg, channels.Deps{Bus: bus.New(1), Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	require.NoError(t, err)
	err = ch.Start(testkit.Ctx(t))
	require.ErrorIs(t, err, telegram.ErrToken)
	assert.Contains(t, err.Error(), "channels.telegram.token: ")
	assert.NotContains(t, err.Error(), "wrong-s3cret")
	assert.NotContains(t, logs.String(), "wrong-s3cret")
}

// Telegram out of reach at the start is retried in the background; the
// token never shows in what is logged about it.
func TestUnreachableAtStart(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	var up atomic.Bool
	target, _ := url.Parse(fake.URL())
	forward := httputil.NewSingleHostReverseProxy(target)
	forward.ErrorLog = log.New(io.Discard, "", 0) // a long poll cut at the end is no news
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() {
			http.Error(w, "<html>bad gateway</html>", http.StatusBadGateway)
			return
		}
		forward.ServeHTTP(w, r)
	}))
	t.Cleanup(gate.Close)
	cfg := testConfig(fake, t.TempDir())
	cfg.BaseURL = gate.URL
	h := startHarness(t, fake, cfg)
	h.answer(channelhost.Echo)
	assert.Contains(t, h.logs.String(), "telegram not reachable yet")
	up.Store(true)
	h.say("hello")
	assert.Equal(t, "echo: hello", h.replies(501, 1)[0].Text)
	assert.NotContains(t, h.logs.String(), fake.Token())
}

// The proxy key sends every call through the proxy (its credentials
// never logged).
func TestProxy(t *testing.T) {
	t.Parallel()
	fake := telegramfake.New(telegramfake.Options{})
	t.Cleanup(fake.Close)
	var through atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Authorization") == "" {
			http.Error(w, "proxy credentials wanted", http.StatusProxyAuthRequired)
			return
		}
		through.Add(1)
		out := r.Clone(r.Context())
		out.RequestURI = ""
		resp, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
	}))
	t.Cleanup(proxy.Close)
	cfg := testConfig(fake, t.TempDir())
	cfg.Proxy = channels.Secret("http://user:pr0xy-pass@" + proxy.Listener.Addr().String())
	h := startHarness(t, fake, cfg)
	h.answer(channelhost.Echo)
	h.say("via proxy")
	assert.Equal(t, "echo: via proxy", h.replies(501, 1)[0].Text)
	assert.Positive(t, through.Load())
	h.ch.Logger().Info("config", "cfg", h.cfg)
	assert.NotContains(t, h.logs.String(), "pr0xy-pass")
	assert.NotContains(t, h.logs.String(), fake.Token())
}
