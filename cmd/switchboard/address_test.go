package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sendIDs runs send and returns the ids it printed, one per line.
func (s *sandbox) sendIDs(args ...string) []string {
	s.t.Helper()
	out := strings.Split(strings.TrimSuffix(s.ok(append([]string{"send", "--new"}, args...)...), "\n"), "\n")
	for _, id := range out {
		require.Regexp(s.t, uuidV7, id)
	}
	return out
}

func TestSendToGroups(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	s.writeFixtures() // researcher (offline; web_search, ...), coder (online; code_write, test_run, review)

	all := s.sendIDs("--from", "lead", "--to", "all", "--text", "standup")
	require.Len(t, all, 2, "every registered agent but the sender, offline ones too")
	coder := s.inboxLines("coder")
	researcher := s.inboxLines("researcher")
	assert.Equal(t, all[0], coder[len(coder)-1]["id"], "recipients in id order: coder first")
	assert.Equal(t, all[1], researcher[len(researcher)-1]["id"])
	assert.Equal(t, all[0], researcher[len(researcher)-1]["thread_id"], "the copies share a thread")

	assert.Len(t, s.sendIDs("--from", "lead", "--to", "cap:review", "--text", "x"), 1)
	assert.Len(t, s.sendIDs("--from", "lead", "--to", "review", "--text", "x"), 1, "a bare capability")
	assert.Len(t, s.sendIDs("--from", "lead", "--to", "*er", "--text", "x"), 2, "a pattern")
	assert.Len(t, s.sendIDs("--from", "lead", "--to", "newcomer", "--text", "x"), 1, "an agent that has not registered")
	assert.Len(t, s.msgFiles("newcomer", "inbox"), 1)

	assertOneLineError(t, s.run("send", "--from", "lead", "--to", "cap:deploy", "--text", "x"), 1,
		"target cap:deploy: unknown target: no agent has capability deploy")
	assertOneLineError(t, s.run("send", "--from", "lead", "--to", "tester-*", "--text", "x"), 1,
		"no registered agent matches (registered: coder, researcher)")
	assertOneLineError(t, s.run("send", "--from", "lead", "--to", "any:web_search", "--text", "x"), 1,
		"no online agent offers it")
	assertOneLineError(t, s.run("send", "--from", "lead", "--to", "all", "--type", "task", "--task-id", "t", "--text", "x"), 2,
		"--task-id names one task, for one agent")
	assertOneLineError(t, s.run("send", "--from", "lead", "--to", "team:x", "--text", "x"), 2, `--to: target "team:x": unknown prefix`)

	conf := filepath.Join(s.home, "fanout.json")
	require.NoError(t, os.WriteFile(conf, []byte(`{"channels": {"mailbox": {"maxFanout": 1}}}`), 0o600))
	assertOneLineError(t, s.run("--config", conf, "send", "--from", "lead", "--to", "all", "--text", "x"), 1,
		"2 recipients, over the limit of 1 (channels.mailbox.maxFanout)")
}
