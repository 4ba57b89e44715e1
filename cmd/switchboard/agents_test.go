package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAgents(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	s.sendID("--from", "coder", "--to", "newcomer", "--text", "welcome")

	lines := decodeLines(t, s.ok("agents", "--json"))
	require.Len(t, lines, 3)
	byID := map[string]map[string]any{}
	for _, l := range lines {
		byID[l["agent_id"].(string)] = l
	}
	assert.Equal(t, []string{"coder", "researcher", "newcomer"},
		[]string{lines[0]["agent_id"].(string), lines[1]["agent_id"].(string), lines[2]["agent_id"].(string)},
		"registered agents by id, then unregistered ones")

	coder := byID["coder"]
	assert.Equal(t, "idle", coder["effective_status"], "fresh heartbeat")
	assert.Equal(t, float64(1), coder["inbox_depth"])
	assert.Equal(t, true, coder["registered"])
	assert.Equal(t, "负责代码编写和修改的 agent", coder["description"])
	assert.Equal(t, []any{"code_write", "test_run", "review"}, coder["capabilities"])

	researcher := byID["researcher"]
	assert.Equal(t, "idle", researcher["status"], "the card's own word")
	assert.Equal(t, "offline", researcher["effective_status"], "computed from the stale heartbeat")
	assert.Equal(t, float64(0), researcher["inbox_depth"])
	assert.Equal(t, []any{"msg_1745659200_coder"}, researcher["current_tasks"])
	assert.Equal(t, "2026-04-26T10:05:00.000000+00:00", researcher["last_heartbeat"])

	newcomer := byID["newcomer"]
	assert.Equal(t, false, newcomer["registered"])
	assert.Equal(t, "offline", newcomer["effective_status"])
	assert.Equal(t, float64(1), newcomer["inbox_depth"])

	human := s.ok("agents")
	assert.Regexp(t, `(?m)^AGENT +STATUS +INBOX +TASKS +CAPABILITIES +ROLES +HEARTBEAT +DESCRIPTION$`, human)
	assert.Regexp(t, `(?m)^coder \(unverified\) +idle +1 +0/3 +code_write,test_run,review +- +(just now|\d+s ago) +负责代码编写和修改的 agent$`, human)
	assert.Regexp(t, `(?m)^researcher \(unverified\) +offline +0 +1/3 +web_search,code_analysis,summarization +- +\d+d ago +负责信息检索和分析的 agent$`, human)
	assert.Regexp(t, `(?m)^newcomer +unregistered +1 +- +- +- +never +-$`, human)
	assert.NotContains(t, human, "\x1b[", "no colour when stdout is not a terminal")
}

func TestAgentsEmptyRoot(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	assert.Empty(t, s.ok("agents", "--json"))
	assert.Equal(t, "no agents in "+s.root+"\n", s.ok("agents"))
}

func TestInboxListsUnreadableFiles(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures()
	s.writeFile("coder/inbox/1745659300_writer.msg.json", `{"id": "msg_1745659300_writer", "from": "wri`)

	lines := s.inboxLines("coder")
	require.Len(t, lines, 2)
	assert.Equal(t, "1745659300_writer.msg.json", lines[1]["file"])
	assert.Contains(t, lines[1]["error"], "malformed message")
	assert.NotContains(t, lines[1], "id")

	human := s.ok("inbox", "coder")
	assert.Regexp(t, `(?m)^- +- +unreadable +1745659300_writer\.msg\.json +malformed message`, human)
	assert.Len(t, s.msgFiles("coder", "inbox"), 2, "read only: nothing moved")
}

func TestInboxOfUnknownAgent(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	before := snapshot(t, s.root)
	assert.Empty(t, s.ok("inbox", "nobody", "--json"))
	assert.Equal(t, "no messages pending for nobody\n", s.ok("inbox", "nobody"))
	requireUnchanged(t, before, s.root, "inbox") // read only: no folder created
}

// TestAgentsStatusFromHeartbeats: the status shown is computed from the
// heartbeat and the tasks, not taken from the card.
func TestAgentsStatusFromHeartbeats(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	now := time.Now().UTC()
	card := func(id, status string, heartbeat time.Time, tasks string) string {
		return `"` + id + `": {"agent_id": "` + id + `", "description": "", "capabilities": ["review"], "status": "` + status +
			`", "allow_from": ["*"], "max_concurrent_tasks": 2, "current_tasks": [` + tasks + `],
			"registered_at": "2026-04-26T10:00:00+00:00", "last_heartbeat": "` + heartbeat.Format("2006-01-02T15:04:05.000000+00:00") + `"}`
	}
	s.writeNanobotFile("_registry.json", "{"+strings.Join([]string{
		card("busy-one", "idle", now.Add(-3*time.Second), `"t1"`), // the card lags: tasks say busy
		card("crashed", "busy", now.Add(-10*time.Minute), `"t2"`), // no heartbeat for 10 minutes
		card("stopped", "offline", now.Add(-time.Second), ""),     // said goodbye
		card("quiet", "idle", now.Add(-20*time.Second), ""),       // within offlineAfter (30s)
	}, ",")+"}")

	status := map[string]string{}
	for _, l := range decodeLines(t, s.ok("agents", "--json")) {
		status[l["agent_id"].(string)] = l["effective_status"].(string)
	}
	assert.Equal(t, map[string]string{"busy-one": "busy", "crashed": "offline", "stopped": "offline", "quiet": "idle"}, status)

	human := s.ok("agents")
	assert.Regexp(t, `(?m)^busy-one \(unverified\) +busy +0 +1/2 +review +- +\d+s ago +-$`, human)
	assert.Regexp(t, `(?m)^crashed \(unverified\) +offline +0 +1/2 +review +- +10m ago +-$`, human)
	assert.Regexp(t, `(?m)^quiet \(unverified\) +idle +0 +0/2 +review +- +\d+s ago +-$`, human)

	// A shorter offlineAfter in the config makes the quiet agent offline.
	conf := filepath.Join(s.home, "strict.json")
	require.NoError(t, os.WriteFile(conf, []byte(`{"channels": {"mailbox": {"offlineAfter": 10}}}`), 0o600))
	assert.Regexp(t, `(?m)^quiet \(unverified\) +offline `, s.ok("--config", conf, "agents"))
}
