package main_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/fsstore"
)

// A task run from the shell, end to end: the delegator's channel sweeps
// the task's messages to archive/by-task/<task>/ when the final update
// arrives, a request answered while its agent was down is archived when
// the agent comes back (not handed over again), and thread reads the
// conversation back whole from an inbox, a claimed/ folder, a processed/
// folder and the task's archive.
func TestThreadAfterARealTaskSweep(t *testing.T) {
	t.Parallel()
	s := newSandbox(t)
	task := s.sendID("--from", "lead", "--to", "coder", "--type", "task", "--task-id", "t9", "--text", "write a sort")
	s.ok("recv", "coder", "--count", "1") // accepts; the task stays claimed (recv never finishes it)
	ask := s.sendID("--from", "coder", "--to", "lead", "--reply-to", task, "--for-task", "t9",
		"--text", "which order?", "--expects-reply")
	s.ok("recv", "lead", "--count", "2") // the accepted update, and the question (held: a reply is owed)
	claims, err := fsstore.Claims(s.root, "lead")
	require.NoError(t, err)
	require.Len(t, claims, 1, "the question is held")
	assert.Contains(t, s.ok("pending", "lead"), ask)

	answer := s.sendID("--from", "lead", "--to", "coder", "--reply-to", ask, "--text", "ascending")
	done := s.sendID("--from", "coder", "--to", "lead", "--reply-to", task, "--type", "task_update",
		"--task-id", "t9", "--task-state", "completed", "--text", "1 3 5 9")
	out := s.ok("recv", "lead", "--count", "1")
	assert.Contains(t, out, "1 3 5 9")
	assert.NotContains(t, out, "which order?", "answered meanwhile: archived, not handed over again")
	claims, err = fsstore.Claims(s.root, "lead")
	require.NoError(t, err)
	assert.Empty(t, claims)
	assert.Len(t, files(t, filepath.Join(s.root, "lead", "archive", "by-task", "t9")), 3,
		"the accepted and completed updates and the question")
	assert.NotContains(t, s.ok("pending", "lead"), ask)

	thanks := s.sendID("--from", "coder", "--to", "lead", "--reply-to", answer, "--text", "thanks")
	s.ok("recv", "lead", "--count", "1")

	lines := decodeLines(t, s.ok("thread", thanks, "--json"))
	where := map[string]string{}
	var ids []string
	for _, l := range lines {
		id := l["id"].(string)
		ids = append(ids, id)
		where[id] = strings.Join(strings.Split(l["file"].(string), string(filepath.Separator))[:2], "/")
	}
	require.Len(t, ids, 6, "%v", where)
	assert.Equal(t, task, ids[0], "the task starts the thread")
	assert.Subset(t, ids, []string{ask, answer, done, thanks})
	assert.Equal(t, "coder/inbox", where[task], "claimed: held in the inbox until it is finished")
	assert.Equal(t, "lead/archive", where[ask])
	assert.Equal(t, "coder/inbox", where[answer])
	assert.Equal(t, "lead/archive", where[done])
	assert.Equal(t, "lead/processed", where[thanks])
	swept := decodeLines(t, s.ok("log", "--kind", "swept", "--task", "t9", "--json"))
	assert.Len(t, swept, 3)
}
