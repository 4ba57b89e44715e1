package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAgents(t *testing.T) {
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
	assert.Regexp(t, `(?m)^AGENT +STATUS +INBOX +TASKS +CAPABILITIES +HEARTBEAT +DESCRIPTION$`, human)
	assert.Regexp(t, `(?m)^coder +idle +1 +0/3 +code_write,test_run,review +(just now|\d+s ago) +负责代码编写和修改的 agent$`, human)
	assert.Regexp(t, `(?m)^researcher +offline +0 +1/3 +web_search,code_analysis,summarization +\d+d ago +负责信息检索和分析的 agent$`, human)
	assert.Regexp(t, `(?m)^newcomer +unregistered +1 +- +- +never +-$`, human)
	assert.NotContains(t, human, "\x1b[", "no colour when stdout is not a terminal")
}

func TestAgentsEmptyRoot(t *testing.T) {
	s := newSandbox(t)
	assert.Empty(t, s.ok("agents", "--json"))
	assert.Equal(t, "no agents in "+s.root+"\n", s.ok("agents"))
}

func TestInboxListsUnreadableFiles(t *testing.T) {
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
	s := newSandbox(t)
	assert.Empty(t, s.ok("inbox", "nobody", "--json"))
	assert.Equal(t, "no messages pending for nobody\n", s.ok("inbox", "nobody"))
	assert.Empty(t, files(t, s.root), "read only: no folder created")
}
