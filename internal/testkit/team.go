package testkit

import (
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Team is the cards of a team for addressing tests, heartbeats at now:
// lead (role planner); coder-1 (code, role dev, one task running); coder-2
// (code, review, role dev); reviewer (review, role reviewer); coder-3
// (code) whose heartbeat is an hour old: offline.
func Team(at time.Time) []envelope.Card {
	now := envelope.NewTime(at)
	old := envelope.NewTime(at.Add(-time.Hour))
	return []envelope.Card{
		{AgentID: "lead", Roles: []string{"planner"}, LastHeartbeat: now, Status: envelope.StatusIdle, MaxConcurrentTasks: 3},
		{AgentID: "coder-1", Capabilities: []string{"code"}, Roles: []string{"dev"}, LastHeartbeat: now,
			Status: envelope.StatusBusy, MaxConcurrentTasks: 2, CurrentTasks: []string{"t9"}},
		{AgentID: "coder-2", Capabilities: []string{"code", "review"}, Roles: []string{"dev"}, LastHeartbeat: now,
			Status: envelope.StatusIdle, MaxConcurrentTasks: 2},
		{AgentID: "reviewer", Capabilities: []string{"review"}, Roles: []string{"reviewer"}, LastHeartbeat: now,
			Status: envelope.StatusIdle, MaxConcurrentTasks: 1},
		{AgentID: "coder-3", Capabilities: []string{"code"}, LastHeartbeat: old, Status: envelope.StatusIdle, MaxConcurrentTasks: 5},
	}
}
