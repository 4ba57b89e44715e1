package main_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 25, on NATS: a task its worker is killed on every time is set
// aside after maxDeliver (5) hand-outs, and the user is told in the
// conversation the task began in. coder is killed (SIGKILL) while its
// model works on the task until, at a start, the task is set aside
// instead of handed out (after 5 kills; 6 when a kill came before the
// inbox wrote down its first hand-out, see docs/backends.md).
func TestPoisonTaskOnNATSIsSetAsideAndTheUserTold(t *testing.T) {
	t.Parallel()
	url := startNATS(t)
	ft := startTeamWith(t, `, "judge": "capabilities"`, 0, fmt.Sprintf(`, "backend": "nats", "nats": {"url": %q}`, url))
	held := ft.llm.Hold("task")
	failed := ft.llm.Hold("update:failed")
	ft.say(t, "ev_1", "please sort 5 3 9 1")
	awaitChatReply(t, ft.webhook, "oc_alice", "coder accepted the task")
	kills := 0
	for done := false; !done; {
		select {
		case <-held.Arrived: // coder's model works on the task
			kills++
			require.LessOrEqual(t, kills, 6, "the task keeps being handed out")
			require.NoError(t, ft.coder.cmd.Process.Kill())
			ft.coder.wait()
			<-held.GaveUp
			next := ft.llm.Hold("task")
			held.Release()
			held = next
			ft.startCoder()
		case <-failed.Arrived: // researcher reads that the task failed
			done = true
		}
	}
	held.Release()
	failed.Release()
	t.Logf("%d kills", kills)
	assert.GreaterOrEqual(t, kills, 5)
	_, chat := awaitChatReply(t, ft.webhook, "oc_alice", "coder reports failed")
	last := chat[len(chat)-1].Content
	assert.Contains(t, last, "without an acknowledgement (maxDeliver 5)", "the reason is told: %q", last)
	ft.stop(t)
}
