package mailbox_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/config"
)

func TestWorkConfigDecodesAndDefaults(t *testing.T) {
	t.Parallel()
	assert.EqualValues(t, 30, mailbox.DefaultConfig().AcceptTimeout)
	assert.Zero(t, mailbox.DefaultConfig().Budget, "no budget, no cap by default")
	cfg, err := mailbox.DecodeConfig(config.Section{Path: "channels.mailbox", Raw: map[string]any{
		"agentId": "coder", "acceptTimeout": 12.5,
		"budget": map[string]any{"taskTokens": 4000, "taskCost": 0.5, "dailyTokens": "100000",
			"inputPrice": 3, "outputPrice": 15},
	}})
	require.NoError(t, err)
	assert.EqualValues(t, 12.5, cfg.AcceptTimeout)
	assert.Equal(t, mailbox.Budget{TaskTokens: 4000, TaskCost: 0.5, DailyTokens: 100000, InputPrice: 3, OutputPrice: 15},
		cfg.Budget)
}

func TestWorkConfigErrorsNameTheKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  map[string]any
		want string
	}{
		{"unknown budget key", map[string]any{"budget": map[string]any{"tokens": 5}}, "channels.mailbox.budget.tokens"},
		{"negative tokens", map[string]any{"budget": map[string]any{"taskTokens": -1}}, "channels.mailbox.budget.taskTokens: want 0 (none) or more"},
		{"negative cap", map[string]any{"budget": map[string]any{"dailyTokens": -1}}, "channels.mailbox.budget.dailyTokens"},
		{"cost without prices", map[string]any{"budget": map[string]any{"taskCost": 1}}, "channels.mailbox.budget.taskCost: a cost budget needs the model's prices"},
		{"accept timeout zero", map[string]any{"acceptTimeout": 0}, "channels.mailbox.acceptTimeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			raw := map[string]any{"agentId": "coder"}
			for k, v := range tt.raw {
				raw[k] = v
			}
			_, err := mailbox.DecodeConfig(config.Section{Path: "channels.mailbox", Raw: raw})
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
