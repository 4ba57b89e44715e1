package main_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeTeam writes nanobot's two cards (no roles) beside three switchboard
// cards with roles: reviewer-a (reviewer, planner; idle, 2 free slots),
// reviewer-b (reviewer; busy, 2 of 3 slots free) and planner-off (planner;
// heartbeat gone, so its 4 slots are not free), plus a message waiting for
// newcomer, which has no card.
func (s *sandbox) writeTeam() {
	s.t.Helper()
	now := time.Now().UTC()
	iso := func(t time.Time) string { return t.Format("2006-01-02T15:04:05.000000+00:00") }
	card := func(id, roles, caps string, maxTasks, tasks string, heartbeat time.Time) string {
		return `  "` + id + `": {"agent_id": "` + id + `", "description": "", "capabilities": [` + caps + `],
    "status": "idle", "allow_from": ["*"], "max_concurrent_tasks": ` + maxTasks + `, "current_tasks": [` + tasks + `],
    "registered_at": "2026-04-26T10:00:00.000000+00:00", "last_heartbeat": "` + iso(heartbeat) + `",
    "roles": [` + roles + `], "pid": 4242, "host": "build-1"}`
	}
	nanobot := strings.TrimSuffix(strings.Replace(registryJSON, "NOW", iso(now), 1), "}\n")
	s.writeNanobotFile("_registry.json", nanobot+",\n"+strings.Join([]string{
		card("reviewer-a", `"reviewer", "planner"`, `"review"`, "2", "", now),
		card("reviewer-b", `"reviewer"`, `"review", "code_write"`, "3", `"t1"`, now),
		card("planner-off", `"planner"`, `"plan"`, "4", "", now.Add(-time.Hour)),
	}, ",\n")+"\n}\n")
	s.sendID("--from", "coder", "--to", "newcomer", "--text", "welcome")
}

// ids runs agents with args and --json and returns the agent ids in order.
func (s *sandbox) agentIDs(args ...string) []string {
	s.t.Helper()
	ids := []string{}
	for _, l := range decodeLines(s.t, s.ok(append([]string{"agents", "--json"}, args...)...)) {
		ids = append(ids, l["agent_id"].(string))
	}
	return ids
}

func TestAgentsRoles(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeTeam()

	lines := decodeLines(t, s.ok("agents", "--json"))
	require.Len(t, lines, 6)
	roles := map[string]any{}
	for _, l := range lines {
		roles[l["agent_id"].(string)] = l["roles"]
		for _, key := range []string{"agent_id", "description", "capabilities", "status", "allow_from",
			"max_concurrent_tasks", "current_tasks", "registered_at", "last_heartbeat", "effective_status",
			"inbox_depth", "registered", "roles"} {
			assert.Contains(t, l, key, "%s: field names stay as they were, roles always there", l["agent_id"])
		}
	}
	assert.Equal(t, map[string]any{
		"coder": []any{}, "researcher": []any{}, "newcomer": []any{}, // no roles: an empty list, not null
		"reviewer-a": []any{"reviewer", "planner"}, "reviewer-b": []any{"reviewer"}, "planner-off": []any{"planner"},
	}, roles)

	human := s.ok("agents")
	assert.Regexp(t, `(?m)^AGENT +STATUS +INBOX +TASKS +CAPABILITIES +ROLES +HEARTBEAT +DESCRIPTION$`, human)
	assert.Regexp(t, `(?m)^reviewer-a \(unverified\) +idle +0 +0/2 +review +reviewer,planner +(just now|\d+s ago) +-$`, human)
	assert.Regexp(t, `(?m)^reviewer-b \(unverified\) +busy +0 +1/3 +review,code_write +reviewer +(just now|\d+s ago) +-$`, human)
	assert.Regexp(t, `(?m)^planner-off \(unverified\) +offline +0 +0/4 +plan +planner +1h ago +-$`, human)
	assert.Regexp(t, `(?m)^coder \(unverified\) +idle +0 +0/3 +code_write,test_run,review +- +(just now|\d+s ago) +负责代码编写和修改的 agent$`, human)
}

func TestAgentsFilters(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeTeam()

	all := []string{"coder", "planner-off", "researcher", "reviewer-a", "reviewer-b", "newcomer"}
	assert.Equal(t, all, s.agentIDs(), "no filter: everyone, unregistered last")
	assert.Equal(t, []string{"coder", "reviewer-a", "reviewer-b"}, s.agentIDs("--capability", "review"),
		"a nanobot card with the capability is found too")
	assert.Equal(t, []string{"reviewer-a", "reviewer-b"}, s.agentIDs("--role", "reviewer"))
	assert.Equal(t, []string{"planner-off", "reviewer-a"}, s.agentIDs("--role", "planner"), "offline holders are listed")
	assert.Equal(t, []string{"reviewer-a"}, s.agentIDs("--capability", "review", "--role", "planner"), "both must hold")
	assert.Equal(t, []string{"reviewer-b"}, s.agentIDs("--capability", "review", "--capability", "code_write", "--role", "reviewer"),
		"a repeated flag requires each")
	assert.Equal(t, []string{}, s.agentIDs("--role", "review"), "a capability is not a role")

	human := s.ok("agents", "--role", "reviewer")
	assert.Regexp(t, `(?m)^AGENT +STATUS `, human)
	assert.Len(t, strings.Split(strings.TrimSpace(human), "\n"), 3, "header and two agents:\n%s", human)
	assert.Equal(t, "no agents with capability plan and role reviewer in "+s.root+"\n",
		s.ok("agents", "--capability", "plan", "--role", "reviewer"))
}

func TestAgentsByRole(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeTeam()

	assert.Equal(t, []map[string]any{
		{"role": "", "agents": float64(2), "online": float64(1), "free_slots": float64(3), "agent_ids": []any{"coder", "researcher"}},
		{"role": "planner", "agents": float64(2), "online": float64(1), "free_slots": float64(2), "agent_ids": []any{"planner-off", "reviewer-a"}},
		{"role": "reviewer", "agents": float64(2), "online": float64(2), "free_slots": float64(4), "agent_ids": []any{"reviewer-a", "reviewer-b"}},
	}, decodeLines(t, s.ok("agents", "--by-role", "--json")),
		"sorted by role; free slots of online agents only; newcomer has no card and is not counted")

	human := s.ok("agents", "--by-role")
	assert.Equal(t, []string{
		"ROLE      ONLINE  FREE  AGENTS",
		"-         1/2     3     coder,researcher",
		"planner   1/2     2     planner-off,reviewer-a",
		"reviewer  2/2     4     reviewer-a,reviewer-b",
	}, strings.Split(strings.TrimSuffix(human, "\n"), "\n"))

	assert.Equal(t, []map[string]any{
		{"role": "", "agents": float64(1), "online": float64(1), "free_slots": float64(3), "agent_ids": []any{"coder"}},
		{"role": "reviewer", "agents": float64(1), "online": float64(1), "free_slots": float64(2), "agent_ids": []any{"reviewer-b"}},
	}, decodeLines(t, s.ok("agents", "--by-role", "--json", "--capability", "code_write")),
		"a filter chooses the agents summarised")

	empty := newSandbox(t)
	assert.Empty(t, empty.ok("agents", "--by-role", "--json"))
	assert.Equal(t, "no registered agents\n", empty.ok("agents", "--by-role"))
}

func TestAgentsFilterUsageErrors(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeTeam()
	for _, args := range [][]string{
		{"agents", "--capability", ""},
		{"agents", "--role", "a b"},
		{"agents", "--by-role", "--role", "reviewer,planner"},
	} {
		r := s.run(args...)
		assertOneLineError(t, r, 2, "want one non-empty name without blanks or commas")
		assert.Contains(t, r.stderr, "run 'switchboard help agents'")
	}
	assertOneLineError(t, s.run("agents", "--role"), 2, "flag needs an argument")
}

// TestAgentsRoleOfRunningHost: the roles of a host's config reach its card
// and are found by --role and --by-role while it runs.
func TestAgentsRoleOfRunningHost(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	conf := s.writeConfig("host.json", `{"channels": {"mailbox": {"enabled": true, "agentId": "host",
		"capabilities": ["review"], "roles": ["reviewer"], "maxConcurrentTasks": 5}}}`)
	host := s.start("--config", conf, "run")
	host.awaitStderr("host running")

	assert.Equal(t, []string{"host"}, s.agentIDs("--role", "reviewer", "--capability", "review"))
	assert.Equal(t, []map[string]any{
		{"role": "reviewer", "agents": float64(1), "online": float64(1), "free_slots": float64(5), "agent_ids": []any{"host"}},
	}, decodeLines(t, s.ok("agents", "--by-role", "--json")))

	host.signal(sigterm)
	require.Equal(t, 0, host.wait(), "stderr:\n%s", host.stderrSoFar())
	assert.Regexp(t, `(?m)^reviewer +0/1 +0 +host$`, s.ok("agents", "--by-role"), "offline: no free slots")
}
