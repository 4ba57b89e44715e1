package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCamelKey(t *testing.T) {
	tests := []struct{ in, want string }{
		{"agent_id", "agentId"},
		{"max_concurrent_tasks", "maxConcurrentTasks"},
		{"api_key", "apiKey"},
		{"mailbox_2_root", "mailbox2Root"},
		{"agentId", "agentId"},
		{"enabled", "enabled"},
		{"Agent_id", "Agent_id"},   // not lower-case snake_case
		{"agent__id", "agent__id"}, // empty word
		{"_note", "_note"},         // leading underscore
		{"agent_", "agent_"},       // trailing underscore
		{"X-Api_Key", "X-Api_Key"}, // data, not a field name
		{"1_agent", "1_agent"},     // starts with a digit
		{"agent-id", "agent-id"},   // dashes are not snake_case
		{"agent_Id", "agent_Id"},   // mixed case
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, camelKey(tt.in))
		})
	}
}

func TestNormalise(t *testing.T) {
	in := map[string]any{
		"agents": map[string]any{"defaults": map[string]any{"max_tokens": 1.0}},
		"list":   []any{map[string]any{"agent_id": "a"}, "x"},
	}
	want := map[string]any{
		"agents": map[string]any{"defaults": map[string]any{"maxTokens": 1.0}},
		"list":   []any{map[string]any{"agentId": "a"}, "x"},
	}
	var p problems
	assert.Equal(t, want, normalise(in, "", &p))
	assert.NoError(t, p.err())
	assert.Equal(t, map[string]any{"max_tokens": 1.0}, in["agents"].(map[string]any)["defaults"], "input unchanged")
}

func TestNormaliseDuplicates(t *testing.T) {
	in := map[string]any{
		"channels": map[string]any{"mailbox": map[string]any{"agent_id": "snake", "agentId": "camel"}},
		"list":     []any{map[string]any{"max_tokens": 1.0, "maxTokens": 2.0}},
	}
	var p problems
	got := normalise(in, "", &p).(map[string]any)
	assert.Equal(t, "camel", got["channels"].(map[string]any)["mailbox"].(map[string]any)["agentId"], "camelCase wins")
	err := p.err()
	assert.ErrorIs(t, err, ErrDuplicateKey)
	assert.Equal(t, []string{
		`channels.mailbox.agentId: set twice, as "agentId" and "agent_id"`,
		`list[0].maxTokens: set twice, as "maxTokens" and "max_tokens"`,
	}, errLines(err))

	// Without a problems list duplicates are dropped silently.
	assert.NotPanics(t, func() { normalise(in, "", nil) })
}
