package config

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAgentAndProviderAdditions(t *testing.T) {
	t.Parallel()
	c := Default()
	assert.Equal(t, DefaultJudgeTimeout, c.Agents.Defaults.JudgeTimeoutDuration())
	c.Agents.Defaults.JudgeTimeout = 1.5
	assert.Equal(t, 1500*time.Millisecond, c.Agents.Defaults.JudgeTimeoutDuration())

	c.Agents.Defaults.Judge = "vibes"
	c.Agents.Defaults.JudgeTimeout = -1
	c.Agents.Defaults.SystemPrompt, c.Agents.Defaults.SystemPromptFile = "x", "y.md"
	c.Providers["aihubmix"] = ProviderConfig{ExtraHeaders: map[string]string{"APP-Code": "ok", "bad header": "x"}}
	err := c.Validate()
	require.Error(t, err)
	assert.Equal(t, []string{
		`agents.defaults.judge: want "llm", "capabilities" or "accept", got "vibes"`,
		"agents.defaults.judgeTimeout: want a number of seconds of 0 or more, got -1",
		"agents.defaults.systemPromptFile: set systemPrompt or systemPromptFile, not both",
		"providers.aihubmix.extraHeaders.bad header: not a valid HTTP header name: use letters, digits and '-'",
	}, strings.Split(err.Error(), "\n"))
}
