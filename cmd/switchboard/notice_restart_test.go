package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 25: after a restart, a redelivered task repeated its "accepted"
// notice in the user's chat. coder accepts the task, is killed (SIGKILL)
// while its model works on it, and is started again: the task comes back
// to it, and it accepts it again. The user reads that coder accepted the
// task once, then the result.
func TestRestartedWorkerDoesNotRepeatItsNotices(t *testing.T) {
	t.Parallel()
	ft := startTeam(t, `, "judge": "capabilities"`, 0)
	held := ft.llm.Hold("task")
	ft.say(t, "ev_1", "please sort 5 3 9 1")
	awaitChatReply(t, ft.webhook, "oc_alice", "coder accepted the task")
	<-held.Arrived // coder's model works on it
	require.NoError(t, ft.coder.cmd.Process.Kill())
	ft.coder.wait()
	<-held.GaveUp
	held.Release()

	ft.startCoder()
	_, chat := awaitChatReply(t, ft.webhook, "oc_alice", "1 3 5 9")
	var said []string
	for _, r := range chat {
		said = append(said, r.Content)
	}
	require.Len(t, said, 3, "%q", said)
	assert.Regexp(t, `^I asked coder to sort 5 3 9 1 \(task task_\S+\)`, said[0])
	assert.Equal(t, []string{"coder accepted the task and is working on it.", "coder finished: 1 3 5 9"}, said[1:])
	ft.stop(t)
	assert.Contains(t, ft.researcher.stderrSoFar(), "told already; not told again", "the second acceptance came, and was not told")
}
