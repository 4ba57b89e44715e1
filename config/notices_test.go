package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNoticeTemplate(t *testing.T) {
	t.Parallel()
	values := map[string]string{"agent": "coder", "task_id": "t1", "text": "half way"}
	for _, tt := range []struct{ template, want string }{
		{"{agent} accepted the task.", "coder accepted the task."},
		{"{agent} is working on it[: {text}|.]", "coder is working on it: half way"},
		{"{agent} is working on it[: {reason}|.]", "coder is working on it."},
		{"task {task_id}: [{reason}; ]{text}", "task t1: half way"},
		{"[{reason}]", ""},
		{"no placeholders at all", "no placeholders at all"},
		{"{agent}|{task_id}", "coder|t1"},
		{"[{agent} and {reason}|{agent} alone]", "coder alone"},
		{"", ""},
	} {
		tpl, err := ParseNoticeTemplate(tt.template)
		require.NoError(t, err, tt.template)
		assert.Equal(t, tt.want, tpl.Render(values), tt.template)
	}
	for template, want := range map[string]string{
		"{who} took it":    "unknown placeholder {who}: want one of agent, task_id, task, text, reason, event",
		"{agent":           "a '{' without its '}'",
		"agent}":           "a '}' without its '{'",
		"[: {text}":        "a '[' without its ']' (optional parts do not nest)",
		"[a [b] c]":        "a '[' without its ']' (optional parts do not nest)",
		"done]":            "a ']' without its '['",
		"[{text}|{nope}]":  "unknown placeholder {nope}: want one of agent, task_id, task, text, reason, event",
		"[{nope}|{agent}]": "unknown placeholder {nope}: want one of agent, task_id, task, text, reason, event",
	} {
		_, err := ParseNoticeTemplate(template)
		assert.EqualError(t, err, want, template)
	}
}

func TestNoticesValidate(t *testing.T) {
	t.Parallel()
	var p problems
	NoticesConfig{Mode: "later", Language: "fr", Templates: map[string]string{"done": "x", "accepted": "{who}",
		"working": "{agent} works"}}.validate(&p, "agents.defaults.notices.")
	err := p.err()
	require.Error(t, err)
	for _, want := range []string{
		`agents.defaults.notices.mode: want "template" or "model", got "later"`,
		`agents.defaults.notices.language: want "auto", "en" or "zh", got "fr"`,
		`agents.defaults.notices.templates.done: not an event a notice is told for`,
		`agents.defaults.notices.templates.accepted: unknown placeholder {who}`,
	} {
		assert.ErrorContains(t, err, want)
	}
	assert.NotContains(t, err.Error(), "templates.working")
	var ok problems
	NoticesConfig{}.validate(&ok, "agents.defaults.notices.")
	assert.NoError(t, ok.err())
}
