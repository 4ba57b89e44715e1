package telegram_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/telegram"
	"github.com/switchboard-dev/switchboard/config"
)

// section loads a config file holding channels.telegram = raw and
// returns the config and the section.
func section(t *testing.T, raw string) (*config.Config, config.Section) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"channels": {"telegram": `+raw+`}}`), 0o600))
	cfg, err := config.Load(config.LoadOptions{Path: path})
	require.NoError(t, err)
	s, ok := cfg.Section("telegram")
	require.True(t, ok)
	return cfg, s
}

func TestDecodeConfig(t *testing.T) {
	// nanobot's keys, camelCase and snake_case, and those it has that the
	// channel does not use, accepted.
	cfg, s := section(t, `{"enabled": true, "token": "123:ABC-def_1", "allow_from": ["ada", "42"], "proxy": "socks5://u:p@127.0.0.1:1080",
		"reply_to_message": true, "reactEmoji": "", "group_policy": "open", "mode": "webhook", "webhook_url": "https://bot.example/tg",
		"webhookListenHost": "0.0.0.0", "webhook_listen_port": 9000, "webhookPath": "/hook", "webhook_secret_token": "s3cret-_",
		"webhookMaxConnections": 10, "connectionPoolSize": 32, "pool_timeout": 5, "streaming": true, "inlineKeyboards": false,
		"richMessages": false, "streamEditInterval": 0.6, "pollTimeout": 20}`)
	got, err := telegram.DecodeConfig(s)
	require.NoError(t, err)
	want := telegram.DefaultConfig()
	want.Enabled, want.Token, want.AllowFrom, want.Proxy = true, "123:ABC-def_1", []string{"ada", "42"}, "socks5://u:p@127.0.0.1:1080"
	want.ReplyToMessage, want.ReactEmoji, want.GroupPolicy, want.Mode = true, "", "open", telegram.ModeWebhook
	want.WebhookURL, want.WebhookListenHost, want.WebhookListenPort, want.WebhookPath = "https://bot.example/tg", "0.0.0.0", 9000, "/hook"
	want.WebhookSecretToken, want.WebhookMaxConnections, want.PollTimeout = "s3cret-_", 10, 20*time.Second
	assert.Equal(t, want, got)
	status := map[string]string{}
	for _, e := range cfg.Report.Entries() {
		status[e.Path] = e.Status.String()
	}
	assert.Equal(t, "used", status["channels.telegram.replyToMessage"])
	assert.Equal(t, "ignored", status["channels.telegram.streaming"], "nanobot's key, not used")

	// nanobot's default section: disabled, nothing set, proxy null.
	_, s = section(t, `{"enabled": false, "token": "", "allowFrom": [], "proxy": null, "replyToMessage": false}`)
	_, err = telegram.DecodeConfig(s)
	assert.NoError(t, err, "a disabled section needs no token")
}

// Every error names its key, and says nothing of the secrets.
func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		keys []string
	}{
		{"enabled without token", `{"enabled": true, "allowFrom": ["*"]}`, []string{"channels.telegram.token"}},
		{"enabled with nobody allowed", `{"enabled": true, "token": "1:a"}`, []string{"channels.telegram.allowFrom"}},
		{"webhook without URL or secret", `{"enabled": true, "token": "1:a", "allowFrom": ["*"], "mode": "webhook"}`,
			[]string{"channels.telegram.webhookUrl", "channels.telegram.webhookSecretToken"}},
		{"bad values", `{"enabled": true, "token": "not-a-token-s3cret", "proxy": "ftp://u:s3cret@x", "groupPolicy": "all", "mode": "push",
			"baseUrl": "file:///x", "pollTimeout": 0, "webhookListenPort": 70000, "webhookPath": "hook", "webhookMaxConnections": 0}`,
			[]string{"channels.telegram.token", "channels.telegram.proxy", "channels.telegram.groupPolicy", "channels.telegram.mode",
				"channels.telegram.baseUrl", "channels.telegram.pollTimeout", "channels.telegram.webhookListenPort",
				"channels.telegram.webhookPath", "channels.telegram.webhookMaxConnections"}},
		{"bad webhook values", `{"mode": "webhook", "webhookSecretToken": "s3cret with spaces", "webhookUrl": "http://plain.example"}`,
			[]string{"channels.telegram.webhookSecretToken", "channels.telegram.webhookUrl"}},
		{"unknown key", `{"tokn": "1:a"}`, []string{"channels.telegram.tokn"}},
		{"a typo and what it hides, at once", `{"enabled": true, "tokn": "1:a", "allowFrom": ["*"]}`,
			[]string{"channels.telegram.tokn", "channels.telegram.token"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, s := section(t, tt.raw)
			_, err := telegram.DecodeConfig(s)
			require.Error(t, err)
			for _, k := range tt.keys {
				assert.Contains(t, err.Error(), k+":")
			}
			assert.NotContains(t, err.Error(), "s3cret")
			var ke *config.KeyError
			assert.True(t, errors.As(err, &ke), "a *config.KeyError")
			assert.Equal(t, err, telegram.Check(s), "config check says what run says")
			_, ferr := telegram.Factory(s, channels.Deps{})
			assert.Equal(t, err, ferr)
		})
	}
}

// The channel type is registered, with its checker.
func TestRegistered(t *testing.T) {
	_, err := channels.Lookup("telegram")
	require.NoError(t, err)
	_, s := section(t, `{"mode": "push"}`)
	ok, err := channels.DefaultRegistry().Check("telegram", s)
	assert.True(t, ok)
	assert.ErrorContains(t, err, "channels.telegram.mode")
}
