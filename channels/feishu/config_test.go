package feishu_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/channels/feishu"
	"github.com/switchboard-dev/switchboard/config"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/feishufake"
)

// section loads a config file holding channels.feishu = raw and returns
// the section.
func section(t *testing.T, raw string) config.Section {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"channels": {"feishu": `+raw+`}}`), 0o600))
	cfg, err := config.Load(config.LoadOptions{Path: path})
	require.NoError(t, err)
	s, ok := cfg.Section("feishu")
	require.True(t, ok)
	return s
}

func TestDecodeConfig(t *testing.T) {
	// nanobot's keys, camelCase and snake_case, and its keys the channel
	// does not use (streaming, toolHintPrefix) accepted.
	got, err := feishu.DecodeConfig(section(t, `{"enabled": true, "appId": "cli_1", "app_secret": "s", "encryptKey": "e",
		"verification_token": "v", "allowFrom": ["ou_a"], "react_emoji": "OK", "doneEmoji": "DONE", "groupPolicy": "open",
		"replyToMessage": true, "topic_isolation": false, "domain": "lark", "streaming": true, "toolHintPrefix": "x"}`))
	require.NoError(t, err)
	want := feishu.DefaultConfig()
	want.Enabled, want.AppID, want.AppSecret, want.EncryptKey, want.VerificationToken = true, "cli_1", "s", "e", "v"
	want.AllowFrom, want.ReactEmoji, want.DoneEmoji, want.GroupPolicy = []string{"ou_a"}, "OK", "DONE", "open"
	want.ReplyToMessage, want.TopicIsolation, want.Domain = true, false, "lark"
	assert.Equal(t, want, got)

	// nanobot's default section: disabled, nothing set.
	_, err = feishu.DecodeConfig(section(t, `{"enabled": false, "appId": "", "appSecret": "", "allowFrom": []}`))
	assert.NoError(t, err, "a disabled section needs no credentials")
}

// Every error names its key.
func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		keys []string
	}{
		{"enabled without credentials", `{"enabled": true, "allowFrom": ["*"]}`,
			[]string{"channels.feishu.appId", "channels.feishu.appSecret"}},
		{"enabled with nobody allowed", `{"enabled": true, "appId": "a", "appSecret": "s"}`,
			[]string{"channels.feishu.allowFrom"}},
		{"webhook without token", `{"enabled": true, "appId": "a", "appSecret": "s", "allowFrom": ["*"], "mode": "webhook"}`,
			[]string{"channels.feishu.verificationToken"}},
		{"bad values", `{"groupPolicy": "all", "domain": "slack", "mode": "poll", "baseUrl": "ftp://x"}`,
			[]string{"channels.feishu.groupPolicy", "channels.feishu.domain", "channels.feishu.mode", "channels.feishu.baseUrl"}},
		{"bad webhook path", `{"mode": "webhook", "webhookPath": "events"}`, []string{"channels.feishu.webhookPath"}},
		{"unknown key", `{"appSecrett": "s"}`, []string{"channels.feishu.appSecrett"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := feishu.DecodeConfig(section(t, tt.raw))
			require.Error(t, err)
			for _, k := range tt.keys {
				assert.Contains(t, err.Error(), k+":")
			}
			var ke *config.KeyError
			assert.True(t, errors.As(err, &ke), "a *config.KeyError")
			assert.Equal(t, err, feishu.Check(section(t, tt.raw)), "config check says what run says")
		})
	}
}

// The channel type is registered, with its checker.
func TestRegistered(t *testing.T) {
	_, err := channels.Lookup("feishu")
	require.NoError(t, err)
	ok, err := channels.DefaultRegistry().Check("feishu", section(t, `{"mode": "poll"}`))
	assert.True(t, ok)
	assert.ErrorContains(t, err, "channels.feishu.mode")
}

// Secrets never reach the logs, whatever is logged.
func TestSecretsNotLogged(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *feishu.Config) { c.EncryptKey, c.VerificationToken = "enc-s3cret", "tok-s3cret" })
	h.answer(channelhost.Echo)
	h.push(feishufake.Event{MessageID: "om_1", Content: feishufake.Text("hello")})
	h.replies("om_1", 1)
	h.finished("om_1")
	h.ch.Logger().Info("config", "cfg", h.cfg)
	for _, s := range []string{h.fake.AppSecret(), "enc-s3cret", "tok-s3cret", "t-" + h.fake.AppID()} {
		assert.NotContains(t, h.logs.String(), s)
	}
}
