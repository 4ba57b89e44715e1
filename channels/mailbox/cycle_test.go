package mailbox_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// takeUntil returns the first inbound message on a's bus that match
// accepts, finishing with the others on the way.
func (a *member) takeUntil(t *testing.T, what string, match func(bus.InboundMessage) bool) bus.InboundMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testkit.WaitLimit)
	defer cancel()
	for {
		in, err := a.bus.ConsumeInbound(ctx)
		require.NoError(t, err, "no %s on the bus of %s", what, a.AgentID())
		if match(in) {
			return in
		}
		in.Done()
	}
}

// TestThreeAgentCycleStopped: lead (asked by a Feishu user) delegates to
// coder; coder has reviewer check a first step and, reading the result,
// delegates the whole job to reviewer, which hands the same job back to
// lead: lead → coder → reviewer → lead. The trace rule cannot see it
// (coder's second delegation, made in the turn that read a subtask's
// result, starts a fresh trace); the task tree does: lead rejects the
// task as a cycle, and each task above it fails with the reason, up to
// the user's Feishu chat.
func TestThreeAgentCycleStopped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	lead, coder, reviewer := e.startAgent(t, "lead"), e.startAgent(t, "coder"), e.startAgent(t, "reviewer")
	ctx := context.Background()
	const job = "sort 5 3 9 1"

	t1, err := lead.Post(ctx, route.Request{To: "coder", Type: envelope.TypeTask, Text: job, Callback: feishu})
	require.NoError(t, err)
	in1 := coder.take(t)
	mt1 := metaOf(t, in1)
	require.Equal(t, t1.Task.ID, mt1.Task.ID)
	here := &envelope.Callback{Channel: in1.Channel, ChatID: in1.ChatID, SessionID: in1.SessionKey()}

	// A first subtask, answered: its result is routed back to coder's
	// conversation about t1, with t1's tree.
	check, err := coder.Post(ctx, route.Request{To: "reviewer", Type: envelope.TypeTask,
		Text: "check the order of 5 3 9 1", Parent: mt1, Callback: here})
	require.NoError(t, err)
	assert.Len(t, check.TaskPath, 2)
	reviewer.take(t)
	_, err = reviewer.FinishTask(ctx, check.Task.ID, envelope.StateCompleted, "checked", "", nil)
	require.NoError(t, err)
	result := coder.takeUntil(t, "the check's result", func(in bus.InboundMessage) bool {
		return strings.Contains(in.Content, check.Task.ID+" completed")
	})
	mtResult := metaOf(t, result)
	require.NotNil(t, mtResult.Tree, "the routed result carries the tree of t1")
	assert.Equal(t, t1.Task.ID, mtResult.Tree.Task)

	// In that turn coder delegates the whole job (as delegate_task does
	// in a routed turn: no parent, the routed tree).
	t2, err := coder.Post(ctx, route.Request{To: "reviewer", Type: envelope.TypeTask, Text: job,
		Tree: mtResult.Tree, Callback: here})
	require.NoError(t, err)
	assert.Equal(t, []string{"coder"}, t2.Trace, "a fresh trace: the trace rule cannot see the cycle")
	in2 := reviewer.takeUntil(t, "t2", func(in bus.InboundMessage) bool { return in.ID == t2.ID })
	mt2 := metaOf(t, in2)

	// reviewer hands the job back to lead: the cycle closes.
	t3, err := reviewer.Post(ctx, route.Request{To: "lead", Type: envelope.TypeTask, Text: "Sort 5 3 9 1 ",
		Parent: mt2, Callback: &envelope.Callback{Channel: in2.Channel, ChatID: in2.ChatID, SessionID: in2.SessionKey()}})
	require.NoError(t, err, "the send side lets it go: lead is not in the trace")
	assert.Equal(t, []string{"coder", "reviewer"}, t3.Trace)
	assert.Len(t, t3.TaskPath, 3)

	// The user reads why their task failed, in their Feishu chat.
	told := lead.takeUntil(t, "t1 failed, in the user's chat", func(in bus.InboundMessage) bool {
		return strings.Contains(in.Content, t1.Task.ID+" failed")
	})
	assert.Equal(t, "feishu", told.Channel)
	assert.Equal(t, "oc_chat_1", told.ChatID)
	assert.Contains(t, told.Content, "cycle: the same work came back to lead in one task tree: lead → coder → reviewer → lead")

	// Every task of the tree ended before the news reached lead (each
	// agent updates its card before it sends the failure up): nobody
	// holds work for ever.
	for _, id := range []string{"coder", "reviewer"} {
		assert.Empty(t, e.card(t, id).CurrentTasks, id)
	}
	ev := e.waitEvent(t, "processed", t3.ID)
	assert.Equal(t, "lead", ev.Agent, "lead set the cyclic task aside as handled")
}
