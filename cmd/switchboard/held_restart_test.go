package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 25: a task held by its worker across clean restarts was set aside
// after 5 of them (each start counted as a hand-out), and nobody was told.
// coder accepts the task and holds it while its model works on it; coder
// is stopped with SIGTERM and started again 8 times (past maxDeliver, 5),
// the task coming back each time. Nothing is set aside, the user reads
// that coder accepted the task once, then the result.
func TestHeldTaskSurvivesCleanRestarts(t *testing.T) {
	t.Parallel()
	ft := startTeam(t, `, "judge": "capabilities"`, 0)
	ft.coderArgs = []string{"--stop-timeout", "1"}
	held := ft.llm.Hold("task")
	ft.say(t, "ev_1", "please sort 5 3 9 1")
	awaitChatReply(t, ft.webhook, "oc_alice", "coder accepted the task")
	for i := range 8 {
		<-held.Arrived // coder's model works on the task: coder holds it
		ft.coder.signal(sigterm)
		ft.coder.wait()
		<-held.GaveUp
		require.Contains(t, ft.coder.stderrSoFar(), "host stopped", "restart %d: a clean stop", i+1)
		next := ft.llm.Hold("task")
		held.Release()
		held = next
		ft.startCoder()
	}
	held.Release()

	_, chat := awaitChatReply(t, ft.webhook, "oc_alice", "1 3 5 9")
	var said []string
	for _, r := range chat {
		said = append(said, r.Content)
	}
	require.Len(t, said, 3, "%q", said)
	assert.Equal(t, []string{"coder accepted the task and is working on it.", "coder finished: 1 3 5 9"}, said[1:])
	ft.stop(t)
	assert.Empty(t, ft.s.msgFiles("coder", "rejected"), "nothing set aside")
	assert.NotContains(t, ft.coder.stderrSoFar(), "set aside")
}

// Issue 25: a task its worker crashes on every time is set aside after
// maxDeliver (5) hand-outs, and the user is told, in the conversation
// the task began in. coder is killed (SIGKILL) five times while its model
// works on the task; at its sixth start the task is set aside, and
// researcher hears from coder that the task failed, with the reason.
func TestPoisonTaskIsSetAsideAndTheUserTold(t *testing.T) {
	t.Parallel()
	ft := startTeam(t, `, "judge": "capabilities"`, 0)
	held := ft.llm.Hold("task")
	ft.say(t, "ev_1", "please sort 5 3 9 1")
	awaitChatReply(t, ft.webhook, "oc_alice", "coder accepted the task")
	for i := range 5 {
		<-held.Arrived // coder's model works on the task
		require.NoError(t, ft.coder.cmd.Process.Kill(), "kill %d", i+1)
		ft.coder.wait()
		<-held.GaveUp
		next := ft.llm.Hold("task")
		held.Release()
		held = next
		ft.startCoder()
	}
	defer held.Release()
	_, chat := awaitChatReply(t, ft.webhook, "oc_alice", "coder reports failed")
	last := chat[len(chat)-1].Content
	assert.Contains(t, last, "handed out 5 times without an acknowledgement (maxDeliver 5)", "the reason is told: %q", last)
	assert.Len(t, ft.s.msgFiles("coder", "rejected"), 1, "the task is set aside")
	ft.stop(t)
}
