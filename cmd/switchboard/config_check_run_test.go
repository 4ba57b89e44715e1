package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestConfigCheckFailsWhereRunDoes: config check and run share one
// validation: an empty allowFrom on a channel, and a config whose only
// enabled channel is of a type not in this build, make both exit 1 with
// the same reason.
func TestConfigCheckFailsWhereRunDoes(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	for _, c := range []struct{ name, config, path, reason string }{
		{"allowFrom.json", `{"channels": {"mailbox": {"enabled": true, "agentId": "ops", "allowFrom": []}}}`,
			"channels.mailbox.allowFrom", "empty list denies every sender"},
		{"matrix.json", `{"channels": {"matrix": {"enabled": true}}}`,
			"channels", "of channel types not in this build"},
		{"escalation.json", `{"channels": {"mailbox": {"enabled": true, "agentId": "ops", "escalation": {"levels": ["lead", "any:x"]}}}}`,
			`channels.mailbox.escalation.levels\[1\]`, `want an agent id, cap:NAME, role:NAME or human`},
		{"trigger.json", `{"channels": {"mailbox": {"enabled": true, "agentId": "ops", "escalation": {"levels": ["lead"], "on": ["sometimes"]}}}}`,
			`channels.mailbox.escalation.on\[0\]`, `unknown trigger "sometimes"`},
	} {
		conf := s.writeConfig(c.name, c.config)
		r := s.run("--config", conf, "config", "check")
		assert.Equal(t, 1, r.code, "%s: config check exits 1: %s", c.name, r.stdout)
		assert.Regexp(t, `(?m)^error +`+c.path+` +.*`+c.reason, r.stdout, c.name)
		run := s.run("--config", conf, "run")
		assert.Equal(t, 1, run.code, "%s: run exits 1", c.name)
		assert.Contains(t, run.stderr, "switchboard: ", c.name)
		assert.Contains(t, run.stderr, c.reason, c.name)
	}
}
