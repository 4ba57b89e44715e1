package main_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeartbeatFromTheFuture: a card whose last_heartbeat is in 2099 is
// not taken for a live agent: agents shows it offline, and any: sends
// the task to an agent that is alive.
func TestHeartbeatFromTheFuture(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000000+00:00")
	s.writeNanobotFile("_registry.json", `{
  "ghost": {"agent_id": "ghost", "capabilities": ["sorting"], "status": "idle", "allow_from": ["*"],
            "max_concurrent_tasks": 10, "current_tasks": [], "registered_at": "2026-04-26T10:00:00+00:00",
            "last_heartbeat": "2099-01-01T00:00:00+00:00"},
  "coder": {"agent_id": "coder", "capabilities": ["sorting"], "status": "idle", "allow_from": ["*"],
            "max_concurrent_tasks": 3, "current_tasks": [], "registered_at": "2026-04-26T10:00:00+00:00",
            "last_heartbeat": "`+now+`"}
}`)
	assert.Equal(t, "offline", agentCard(t, s, "ghost")["effective_status"])
	assert.Equal(t, "idle", agentCard(t, s, "coder")["effective_status"])

	id := s.sendID("--from", "lead", "--to", "any:sorting", "--type", "task", "--text", "sort 3 1")
	require.Len(t, s.msgFiles("coder", "inbox"), 1, "the task went to the live agent")
	assert.True(t, strings.Contains(s.msgFiles("coder", "inbox")[0], strings.ReplaceAll(id, "-", "")))
	assert.Empty(t, s.msgFiles("ghost", "inbox"))
}
