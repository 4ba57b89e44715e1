package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDefault(t *testing.T) {
	c := Default()
	assert.Equal(t, AgentDefaults{
		Workspace:             "~/.nanobot/workspace",
		Model:                 "",
		Provider:              "auto",
		MaxTokens:             4096,
		Temperature:           0.2,
		MaxToolIterations:     20,
		MaxConcurrentSessions: 8,
	}, c.Agents.Defaults)
	assert.Empty(t, c.Channels)
	assert.NotNil(t, c.Channels)
	assert.Empty(t, c.Providers)
	assert.NotNil(t, c.Providers)
	assert.Empty(t, c.Path)
	assert.NoError(t, c.Validate())

	c.Agents.Defaults.MaxTokens = 1
	assert.Equal(t, 4096, Default().Agents.Defaults.MaxTokens, "each call is a fresh value")
}

func TestTimeoutDuration(t *testing.T) {
	tests := []struct {
		timeout float64
		want    time.Duration
	}{
		{0, 60 * time.Second},
		{-1, 60 * time.Second},
		{1.5, 1500 * time.Millisecond},
		{120, 2 * time.Minute},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, ProviderConfig{Timeout: tt.timeout}.TimeoutDuration(), "timeout %v", tt.timeout)
	}
}

func TestValidate(t *testing.T) {
	c := Default()
	c.Agents.Defaults.MaxTokens = 0
	c.Agents.Defaults.MaxToolIterations = -1
	c.Agents.Defaults.MaxConcurrentSessions = 0
	c.Agents.Defaults.Temperature = -0.5
	c.Providers["openai"] = ProviderConfig{Timeout: -2, MaxRetries: -1}
	c.Providers["ok"] = ProviderConfig{Timeout: 0, MaxRetries: 0}
	err := c.Validate()
	assert.ErrorIs(t, err, ErrInvalidValue)
	assert.Equal(t, []string{
		"agents.defaults.maxConcurrentSessions: want a whole number of 1 or more, got 0",
		"agents.defaults.maxTokens: want a whole number of 1 or more, got 0",
		"agents.defaults.maxToolIterations: want a whole number of 1 or more, got -1",
		"agents.defaults.temperature: want a number of 0 or more, got -0.5",
		"providers.openai.maxRetries: want a whole number of 0 or more, got -1",
		"providers.openai.timeout: want a number of seconds from 0.01 to 86400 (1 day), or 0 for the default (60 s), got -2",
	}, errLines(err))
}

func TestConfigSection(t *testing.T) {
	mailbox := Section{Path: "channels.mailbox", Raw: map[string]any{"enabled": true}}
	feishu := Section{Path: "channels.feishuStub", Raw: map[string]any{}}
	c := Default()
	c.Channels["mailbox"] = mailbox
	c.Channels["feishuStub"] = feishu

	tests := []struct {
		name string
		want Section
		ok   bool
	}{
		{"mailbox", mailbox, true},
		{"feishuStub", feishu, true},
		{"feishu_stub", feishu, true},
		{"telegram", Section{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := c.Section(tt.name)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSectionEnabled(t *testing.T) {
	tests := []struct {
		name  string
		value any
		want  bool
	}{
		{"true", true, true},
		{"false", false, false},
		{"string true", "true", true},
		{"string TRUE with spaces", " TRUE ", true},
		{"string false", "false", false},
		{"string yes", "yes", false},
		{"number", 1.0, false},
		{"missing", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := map[string]any{}
			if tt.value != nil {
				raw["enabled"] = tt.value
			}
			assert.Equal(t, tt.want, Section{Raw: raw}.Enabled())
		})
	}
	assert.False(t, Section{}.Enabled(), "nil Raw")
}
