package main_test

import (
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunStopsCleanlyWhileStarting: a SIGTERM at any point of run's
// start-up stops the host cleanly (exit 0, the agent marked offline when
// it got as far as registering), never kills it outright: while the
// program's packages initialise (GODEBUG=inittrace=1 says when: the big
// SDKs come after the signal is caught), while the channels start (the
// Feishu stub listens, the mailbox is next), and once it runs.
func TestRunStopsCleanlyWhileStarting(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, at string }{
		{"packages initialising", "init github.com/anthropics/anthropic-sdk-go "},
		{"channels starting", "feishu stub listening"},
		{"running", "host running"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSandbox(t)
			s.environ = append(s.environ, "GODEBUG=inittrace=1")
			conf := s.writeConfig("host.json", `{"channels": {
				"feishu-stub": {"enabled": true, "listen": "127.0.0.1:0", "outbox": "~/outbox.jsonl"},
				"mailbox": {"enabled": true, "agentId": "host"}}}`)
			host := s.start("--config", conf, "run")
			host.awaitStderr(tt.at)
			host.signal(sigterm)
			code := host.wait()
			state := host.cmd.ProcessState
			require.False(t, state.Sys().(syscall.WaitStatus).Signaled(), "killed by the signal; stderr:\n%s", host.stderrSoFar())
			require.Equal(t, 0, code, "stderr:\n%s", host.stderrSoFar())
			assert.Contains(t, host.stderrSoFar(), "host stopped")
			if card := s.cardOf("host"); card != nil {
				assert.Equal(t, "offline", card["status"], "a registered agent is marked offline")
			}
		})
	}
}

// cardOf returns agent's card as agents --json lists it, nil when it has
// none.
func (s *sandbox) cardOf(agent string) map[string]any {
	s.t.Helper()
	for _, l := range decodeLines(s.t, s.ok("agents", "--json")) {
		if l["agent_id"] == agent {
			return l
		}
	}
	return nil
}
