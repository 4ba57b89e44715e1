package slack_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/slack"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/slackfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// load loads a config file holding channels.slack = raw.
func load(t *testing.T, raw string) *config.Config {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"channels": {"slack": `+raw+`}}`), 0o600))
	cfg, err := config.Load(config.LoadOptions{Path: path})
	require.NoError(t, err)
	return cfg
}

// section returns the channels.slack section of a config holding raw.
func section(t *testing.T, raw string) config.Section {
	t.Helper()
	s, ok := load(t, raw).Section("slack")
	require.True(t, ok)
	return s
}

func TestDecodeConfig(t *testing.T) {
	// nanobot's keys, camelCase and snake_case, and those the channel
	// does not use (webhookPath, includeThreadContext, ...) accepted.
	got, err := slack.DecodeConfig(section(t, `{"enabled": true, "mode": "socket", "bot_token": "xoxb-1", "appToken": "xapp-1",
		"reply_in_thread": false, "reactEmoji": ":hourglass:", "done_emoji": "", "allowFrom": ["U1"], "group_policy": "allowlist",
		"groupAllowFrom": ["C1"], "group_require_mention": true, "dm": {"enabled": false, "policy": "allowlist", "allow_from": ["U2"]},
		"webhook_path": "/slack/events", "userTokenReadOnly": true, "includeThreadContext": true, "threadContextLimit": 20}`))
	require.NoError(t, err)
	want := slack.DefaultConfig()
	want.Enabled, want.BotToken, want.AppToken, want.ReplyInThread = true, "xoxb-1", "xapp-1", false
	want.ReactEmoji, want.DoneEmoji, want.AllowFrom = ":hourglass:", "", []string{"U1"}
	want.GroupPolicy, want.GroupAllowFrom, want.GroupRequireMention = "allowlist", []string{"C1"}, true
	want.DM = slack.DMConfig{Enabled: false, Policy: "allowlist", AllowFrom: []string{"U2"}}
	assert.Equal(t, want, got)

	// nanobot's default section: disabled, nothing set.
	_, err = slack.DecodeConfig(section(t, `{"enabled": false, "mode": "socket", "botToken": "", "appToken": "",
		"groupPolicy": "mention", "dm": {"enabled": true, "policy": "open", "allowFrom": []}}`))
	assert.NoError(t, err, "a disabled section needs no tokens")
}

// config check says which keys the channel uses and which of nanobot's
// it ignores.
func TestConfigReport(t *testing.T) {
	cfg := load(t, `{"enabled": false, "botToken": "xoxb-1", "dm": {"policy": "open"}, "includeThreadContext": true}`)
	channels.DefaultRegistry().CheckConfig(cfg)
	require.NoError(t, cfg.Report.Err())
	got := map[string]string{}
	for _, e := range cfg.Report.Entries() {
		got[e.Path] = e.Status.String()
	}
	assert.Equal(t, "used", got["channels.slack.botToken"])
	assert.Equal(t, "used", got["channels.slack.dm.policy"])
	assert.Equal(t, "ignored", got["channels.slack.includeThreadContext"])
}

// Every error names its key.
func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		keys []string
	}{
		{"enabled without tokens", `{"enabled": true, "allowFrom": ["*"]}`,
			[]string{"channels.slack.botToken", "channels.slack.appToken"}},
		{"tokens swapped", `{"enabled": true, "botToken": "xapp-1", "appToken": "xoxb-1", "allowFrom": ["*"]}`,
			[]string{"channels.slack.botToken", "channels.slack.appToken"}},
		{"enabled with nobody allowed", `{"enabled": true, "botToken": "xoxb-1", "appToken": "xapp-1"}`,
			[]string{"channels.slack.allowFrom"}},
		{"bad values", `{"mode": "webhook", "groupPolicy": "all", "dm": {"policy": "closed"}, "apiUrl": "ftp://x", "reactEmoji": "two words"}`,
			[]string{"channels.slack.mode", "channels.slack.groupPolicy", "channels.slack.dm.policy", "channels.slack.apiUrl",
				"channels.slack.reactEmoji"}},
		{"unknown key", `{"botTokn": "xoxb-1", "dm": {"alowFrom": []}}`, []string{"channels.slack.botTokn", "channels.slack.dm.alowFrom"}},
		{"bad type", `{"replyInThread": "sometimes"}`, []string{"channels.slack.replyInThread"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := slack.DecodeConfig(section(t, tt.raw))
			require.Error(t, err)
			for _, k := range tt.keys {
				assert.Contains(t, err.Error(), k+":")
			}
			var ke *config.KeyError
			assert.True(t, errors.As(err, &ke), "a *config.KeyError")
			assert.Equal(t, err, slack.Check(section(t, tt.raw)), "config check says what run says")
		})
	}
}

// The channel type is registered, with its checker, and the Manager
// builds it from a config file.
func TestRegistered(t *testing.T) {
	_, err := channels.Lookup("slack")
	require.NoError(t, err)
	ok, err := channels.DefaultRegistry().Check("slack", section(t, `{"mode": "http"}`))
	assert.True(t, ok)
	assert.ErrorContains(t, err, "channels.slack.mode")

	m := channels.NewManager(bus.New(1), channels.ManagerConfig{})
	err = m.Build(channels.DefaultRegistry(), load(t, `{"enabled": true, "botToken": "xoxb-1", "appToken": "xapp-1"}`))
	assert.ErrorContains(t, err, "channels.slack.allowFrom:")
}

// Tokens Slack refuses stop the start with an error naming the key.
func TestTokensRefused(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(slackfake.Options{})
	t.Cleanup(fake.Close)
	for key, edit := range map[string]func(*slack.Config){
		"botToken": func(c *slack.Config) { c.BotToken = "xoxb-revoked" },
		"appToken": func(c *slack.Config) { c.AppToken = "xapp-revoked" },
	} {
		cfg := testConfig(fake, t.TempDir())
		edit(&cfg)
		ch, err := slack.New(cfg, channels.Deps{Bus: bus.New(1)})
		require.NoError(t, err)
		err = ch.Start(testkit.Ctx(t))
		require.ErrorIs(t, err, slack.ErrCredentials)
		assert.True(t, strings.HasPrefix(err.Error(), "channels.slack."+key+":"), "%v", err)
		assert.NotContains(t, err.Error(), "revoked", "the token is not in the error")
		require.NoError(t, ch.Stop(context.Background()))
	}

	fake.FailNext(slackfake.CallOpen, slackfake.Failure{Status: 404})
	ch, err := slack.New(testConfig(fake, t.TempDir()), channels.Deps{Bus: bus.New(1)})
	require.NoError(t, err)
	err = ch.Start(testkit.Ctx(t))
	assert.ErrorContains(t, err, "channels.slack.appToken: slack socket mode: slack server error: 404 Not Found; check that Socket Mode is on")
}

// Secrets never reach the logs, whatever is logged.
func TestSecretsNotLogged(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	ev := h.push(slackfake.Event{Text: "hello"})
	h.posted("D0DM", "", 1)
	h.finished("D0DM", ev.TS)
	h.ch.Logger().Info("config", "cfg", h.cfg)
	logs := h.logs.String()
	assert.Contains(t, logs, "[redacted]")
	for _, s := range []string{h.fake.BotToken(), h.fake.AppToken(), "ticket="} {
		assert.NotContains(t, logs, s)
	}
}
