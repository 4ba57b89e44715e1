package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestApprovalKeysLoad: a nanobot config with agents.defaults.approval
// loads; the keys are switchboard's own and reported used; the timeout's
// default applies when it is zero.
func TestApprovalKeysLoad(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `{
  "agents": {"defaults": {"model": "anthropic/claude-opus-4-5", "memoryWindow": 50,
    "approval": {"tools": ["deploy", "write_file"], "tasks": ["release"], "timeout": 90, "channel": "feishu", "chatId": "oc_ops"}}},
  "channels": {"mailbox": {"enabled": true, "agentId": "ops"}}
}`)
	c, err := Load(LoadOptions{Path: path})
	require.NoError(t, err)
	assert.Equal(t, ApprovalConfig{Tools: []string{"deploy", "write_file"}, Tasks: []string{"release"}, Timeout: 90,
		Channel: "feishu", ChatID: "oc_ops"}, c.Agents.Defaults.Approval)
	assert.Equal(t, 90*time.Second, c.Agents.Defaults.Approval.TimeoutDuration())
	status := map[string]Status{}
	for _, e := range c.Report.Entries() {
		status[e.Path] = e.Status
	}
	for _, key := range []string{"tools", "tasks", "timeout", "channel", "chatId"} {
		assert.Equal(t, Used, status["agents.defaults.approval."+key], key)
	}
	assert.Equal(t, Ignored, status["agents.defaults.memoryWindow"], "nanobot's key beside it")

	assert.Equal(t, DefaultApprovalTimeout, Default().Agents.Defaults.Approval.TimeoutDuration(), "zero: the default")
	assert.Empty(t, Default().Agents.Defaults.Approval.Tools, "nothing needs approval by default")
}

// TestApprovalValidation: every bad value is named by its key path with
// what to do.
func TestApprovalValidation(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		set  func(*ApprovalConfig)
		want []string
	}{
		{"timeout too short", func(a *ApprovalConfig) { a.Timeout = 0.5 },
			[]string{"agents.defaults.approval.timeout: want a number of seconds from 1 to 86400 (1 day), or 0 for the default (300 s), got 0.5"}},
		{"timeout negative", func(a *ApprovalConfig) { a.Timeout = -1 },
			[]string{"agents.defaults.approval.timeout: want a number of seconds from 1 to 86400 (1 day), or 0 for the default (300 s), got -1"}},
		{"timeout over a day", func(a *ApprovalConfig) { a.Timeout = 90000 },
			[]string{"agents.defaults.approval.timeout: want a number of seconds from 1 to 86400 (1 day), or 0 for the default (300 s), got 90000"}},
		{"channel without chat", func(a *ApprovalConfig) { a.Channel = "feishu" },
			[]string{"agents.defaults.approval.chatId: set both channel and chatId (the operator's chat), or neither"}},
		{"chat without channel", func(a *ApprovalConfig) { a.ChatID = "oc_ops" },
			[]string{"agents.defaults.approval.chatId: set both channel and chatId (the operator's chat), or neither"}},
		{"empty names", func(a *ApprovalConfig) { a.Tools, a.Tasks = []string{"deploy", " "}, []string{""} },
			[]string{`agents.defaults.approval.tasks[0]: an empty name: list tasks by name, or "*" for all`,
				`agents.defaults.approval.tools[1]: an empty name: list tools by name, or "*" for all`}},
		{"fine", func(a *ApprovalConfig) { a.Tools, a.Timeout = []string{"*"}, 1 }, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := Default()
			tt.set(&c.Agents.Defaults.Approval)
			assert.Equal(t, tt.want, errLines(c.Validate()))
		})
	}
}

// TestApprovalBadValueInFile: a bad value in the file fails Load with the
// key path and what to do, as every other key does.
func TestApprovalBadValueInFile(t *testing.T) {
	t.Parallel()
	_, err := Load(LoadOptions{Path: writeConfig(t, `{"agents": {"defaults": {"approval": {"tools": ["deploy"], "timeout": 0.1}}}}`)})
	assert.Equal(t, []string{"agents.defaults.approval.timeout: want a number of seconds from 1 to 86400 (1 day), or 0 for the default (300 s), got 0.1"},
		errLines(err))
	_, err = Load(LoadOptions{Path: writeConfig(t, `{"agents": {"defaults": {"approval": {"tools": [{"name": "deploy"}], "timeot": 5}}}}`)})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "agents.defaults.approval.tools[0]")
	assert.Contains(t, err.Error(), `agents.defaults.approval.timeot: unknown key (did you mean "timeout"?)`)
	_, err = Load(LoadOptions{Path: writeConfig(t, `{"agents": {"defaults": {"approval": {"tasks": [1]}}}}`)})
	assert.Equal(t, []string{"agents.defaults.approval.tasks[0]: want a string, got 1"}, errLines(err),
		"a name that is not a string is one error, not also an empty name")
}
