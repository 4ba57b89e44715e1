package main_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrayUpdateSetAside: a task_update of a task the agent never sent is
// set aside with the reason (dead lists it) and logged once; it reaches
// no conversation.
func TestStrayUpdateSetAside(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	conf := s.writeConfig("lead.json", `{"channels": {"mailbox": {"enabled": true, "agentId": "lead"}}}`)
	host := s.start("--config", conf, "run")
	host.awaitStderr("host running")

	id := s.sendID("--from", "coder", "--to", "lead", "--type", "task_update", "--task-id", "t-none",
		"--task-state", "completed", "--text", "done")
	line := host.awaitLine("mailbox message set aside")
	assert.Contains(t, line, "id="+id)
	assert.Contains(t, line, `reason="task_update of task t-none, which lead did not send to coder"`)
	dead := decodeLines(t, s.ok("dead", "--json"))
	require.Len(t, dead, 1)
	assert.Equal(t, id, dead[0]["id"])
	assert.Equal(t, "task_update of task t-none, which lead did not send to coder", dead[0]["reason"])

	host.signal(sigterm)
	require.Equal(t, 0, host.wait(), "stderr:\n%s", host.stderrSoFar())
	assert.Equal(t, 1, strings.Count(host.stderrSoFar(), "msg=\"mailbox message set aside\""), "logged once")
	assert.NotContains(t, host.stderrSoFar(), "msg=turn", "no turn: the agent was not handed it")
}
