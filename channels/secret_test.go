package channels_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/config"
)

func TestSecretNeverShowsItsValue(t *testing.T) {
	type appConfig struct {
		AppID     string          `json:"appId"`
		AppSecret channels.Secret `json:"appSecret"`
	}
	var cfg appConfig
	require.NoError(t, config.Decode(map[string]any{"appId": "cli_1", "app_secret": "s3cr3t"}, "channels.x", &cfg))
	assert.Equal(t, "s3cr3t", cfg.AppSecret.Reveal(), "decoded as a string")

	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("config", "cfg", cfg, "secret", cfg.AppSecret)
	data, err := json.Marshal(cfg)
	require.NoError(t, err)
	for _, s := range []string{
		fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), fmt.Sprintf("%s", cfg.AppSecret),
		fmt.Sprintf("%q", cfg.AppSecret), fmt.Sprintf("%x", cfg.AppSecret), fmt.Sprintf("%v", &cfg),
		logs.String(), string(data), fmt.Errorf("bad secret %v", cfg.AppSecret).Error(),
	} {
		assert.NotContains(t, s, "s3cr3t")
	}
	assert.Contains(t, fmt.Sprint(cfg), "[redacted]")
	assert.Empty(t, channels.Secret("").String(), "an empty secret shows as empty, so that its absence is visible")
}
