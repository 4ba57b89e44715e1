package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestApprovalConfigCheck: config check reports the keys of
// agents.defaults.approval used beside nanobot's own; a bad value is an
// error naming the key, and run refuses it.
func TestApprovalConfigCheck(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	conf := s.writeConfig("ops.json", `{
  "agents": {"defaults": {"memoryWindow": 50,
    "approval": {"tools": ["deploy"], "tasks": ["release"], "timeout": 120, "channel": "feishu", "chatId": "oc_ops"}}},
  "channels": {"mailbox": {"enabled": true, "agentId": "ops"}}
}`)
	out := s.ok("--config", conf, "config", "check")
	for _, key := range []string{"tools", "tasks", "timeout", "channel", "chatId"} {
		assert.Regexp(t, `(?m)^used +agents.defaults.approval.`+key+`$`, out)
	}
	assert.Regexp(t, `(?m)^ignored +agents.defaults.memoryWindow +nanobot key switchboard does not use$`, out)

	bad := s.writeConfig("bad.json", `{"agents": {"defaults": {"approval": {"tools": [""], "timeout": 0.5, "channel": "feishu"}}},
  "channels": {"mailbox": {"enabled": true, "agentId": "ops"}}}`)
	r := s.run("--config", bad, "config", "check")
	assert.Equal(t, 1, r.code)
	assert.Regexp(t, `(?m)^error +agents.defaults.approval.timeout +want a number of seconds from 1 to 86400 \(1 day\), or 0 for the default \(300 s\), got 0.5$`, r.stdout)
	assert.Regexp(t, `(?m)^error +agents.defaults.approval.chatId +set both channel and chatId \(the operator's chat\), or neither$`, r.stdout)
	assert.Regexp(t, `(?m)^error +agents.defaults.approval.tools\[0\] +an empty name: list tools by name, or "\*" for all$`, r.stdout)
	assertOneLineError(t, s.run("--config", bad, "run"), 1, "agents.defaults.approval")
}
