package budget_test

import (
	"context"
	"math"
	"testing"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/budget"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// routedTurn is a turn on the update of subtask sub routed back to the
// conversation that works on task parent.
func routedTurn(parent, sub string, state envelope.TaskState) *agent.Turn {
	mt := meta.Meta{MessageID: "u-" + sub, From: "coder", Type: envelope.TypeTaskUpdate,
		Task:     &envelope.Task{ID: sub, State: state},
		Callback: &envelope.Callback{Channel: "mailbox", ChatID: "boss"}, Tree: &meta.Tree{Task: parent}}
	return agent.NewTurn(bus.InboundMessage{Channel: "mailbox", ChatID: "boss", Metadata: meta.With(nil, mt)})
}

// A subtask is handed what is left of its parent, set aside until it
// ends; a second subtask meanwhile gets only what neither spent nor
// handed out; what a subtask reports it used is charged to the parent
// once, however often its update is read.
func TestSubtasksSpendTheirParentsBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	k := budget.New(budget.Config{})
	turn := taskTurn("t1", &envelope.Budget{Tokens: 1000})
	_, end := k.Turn(ctx, turn)
	defer end(nil, agent.Usage{})
	require.NoError(t, call(t, k, turn, 80, 20))

	b, settle, err := k.Hand(turn)
	require.NoError(t, err)
	assert.Equal(t, &envelope.Budget{Tokens: 900}, b, "what is left of the parent")
	_, _, err = k.Hand(turn)
	assert.Equal(t, "budget exhausted: the task used 100 of its 1000 tokens and handed the other 900 to subtasks still running",
		reasonOf(t, err), "the first subtask's budget is set aside while it is being sent")
	settle("sub1")
	_, _, err = k.Hand(turn)
	assert.Contains(t, reasonOf(t, err), "handed the other 900", "and while it runs")
	budgetOf, used := k.Spent(ctx, "t1")
	assert.Equal(t, &envelope.Budget{Tokens: 1000}, budgetOf)
	assert.Equal(t, &envelope.Budget{Tokens: 1000}, used, "a subtask still running counts with its whole budget")
	require.NoError(t, call(t, k, turn, 10, 0), "the reserve does not stop the task's own calls")

	k.SubtaskEnded(ctx, "t1", "sub1", &envelope.Budget{Tokens: 300})
	k.SubtaskEnded(ctx, "t1", "sub1", &envelope.Budget{Tokens: 300}) // read twice
	b, settle, err = k.Hand(turn)
	require.NoError(t, err)
	assert.Equal(t, &envelope.Budget{Tokens: 590}, b, "1000 less 110 spent here and 300 by the subtask")
	settle("") // not sent: the reserve is freed
	_, used = k.Spent(ctx, "t1")
	assert.Equal(t, &envelope.Budget{Tokens: 410}, used)

	b, settle, err = k.Hand(turn)
	require.NoError(t, err)
	settle("sub2")
	k.SubtaskEnded(ctx, "t1", "sub2", nil) // a worker that reports nothing
	_, used = k.Spent(ctx, "t1")
	assert.Equal(t, &envelope.Budget{Tokens: 410}, used, "its reserve is freed, nothing charged")
	assert.Equal(t, &envelope.Budget{Tokens: 590}, b)

	k.SubtaskEnded(ctx, "t1", "sub3", &envelope.Budget{Tokens: 700}) // sent from elsewhere, not handed here
	assert.Contains(t, reasonOf(t, call(t, k, turn, 1, 0)), "budget exhausted: the task used 1110 of its 1000 tokens")
	b, used = k.Spent(ctx, "unknown")
	assert.Nil(t, b)
	assert.Nil(t, used, "a task without a budget is not counted")
}

// A subtask's report comes from another agent: a huge one (the largest
// int64) exhausts the parent's budget; it does not wrap the count round
// to a negative number that would free the budget again.
func TestHugeSubtaskReportExhaustsTheBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	k := budget.New(budget.Config{})
	turn := taskTurn("t1", &envelope.Budget{Tokens: 1000})
	_, end := k.Turn(ctx, turn)
	defer end(nil, agent.Usage{})
	require.NoError(t, call(t, k, turn, 80, 20))
	k.SubtaskEnded(ctx, "t1", "sub1", &envelope.Budget{Tokens: math.MaxInt64})
	assert.Contains(t, reasonOf(t, call(t, k, turn, 1, 0)), "budget exhausted: the task used 9223372036854775807 of its 1000 tokens")
	_, _, err := k.Hand(turn)
	assert.Contains(t, reasonOf(t, err), "budget exhausted", "nothing to hand out")
	_, used := k.Spent(ctx, "t1")
	assert.Equal(t, &envelope.Budget{Tokens: math.MaxInt64}, used)
}

// Cost budgets are handed out and charged the same way.
func TestSubtaskCostIsCharged(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	k := budget.New(budget.Config{InputPrice: 1000, OutputPrice: 1000}) // 0.001 a token
	turn := taskTurn("t1", &envelope.Budget{Cost: 1})
	_, end := k.Turn(ctx, turn)
	defer end(nil, agent.Usage{})
	require.NoError(t, call(t, k, turn, 100, 100))
	b, settle, err := k.Hand(turn)
	require.NoError(t, err)
	assert.InDelta(t, 0.8, b.Cost, 1e-9)
	settle("sub1")
	_, _, err = k.Hand(turn)
	assert.Contains(t, reasonOf(t, err), "handed the rest to subtasks still running")
	k.SubtaskEnded(ctx, "t1", "sub1", &envelope.Budget{Tokens: 900, Cost: 0.9})
	assert.Contains(t, reasonOf(t, call(t, k, turn, 1, 0)), "budget exhausted: the task cost 1.1 of its 1")
}

// The turn on a subtask's result, routed back to the conversation that
// works on the parent, is charged to the parent.
func TestRoutedResultIsChargedToTheParent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	k := budget.New(budget.Config{})
	first := taskTurn("t1", &envelope.Budget{Tokens: 100})
	_, end := k.Turn(ctx, first)
	require.NoError(t, call(t, k, first, 50, 0))
	end(nil, agent.Usage{InputTokens: 50})

	routed := routedTurn("t1", "sub1", envelope.StateCompleted)
	_, end = k.Turn(ctx, routed)
	defer end(nil, agent.Usage{})
	require.NoError(t, call(t, k, routed, 60, 0))
	assert.Equal(t, "budget exhausted: the task used 110 of its 100 tokens", reasonOf(t, call(t, k, routed, 1, 0)))

	other := routedTurn("t-without-budget", "sub9", envelope.StateCompleted)
	_, end2 := k.Turn(ctx, other)
	defer end2(nil, agent.Usage{})
	require.NoError(t, call(t, k, other, 1000, 0), "a parent without a budget bounds nothing")
}

// A task handed out again after a restart goes on with what it spent, and
// the budgets its running subtasks hold stay set aside; a budget being
// handed out when the process stopped is not.
func TestTaskSpendingSurvivesARestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBooks()
	k := budget.New(budget.Config{Books: b})
	turn := taskTurn("t1", &envelope.Budget{Tokens: 1000})
	_, end := k.Turn(ctx, turn)
	require.NoError(t, call(t, k, turn, 300, 100))
	_, settle, err := k.Hand(turn)
	require.NoError(t, err)
	settle("sub1") // 600 handed out
	_, _, err = k.Hand(turn)
	require.Error(t, err)
	end(nil, agent.Usage{InputTokens: 300, OutputTokens: 100})

	restarted := budget.New(budget.Config{Books: b})
	again := taskTurn("t1", &envelope.Budget{Tokens: 1000}) // the task, redelivered
	_, end = restarted.Turn(ctx, again)
	defer end(nil, agent.Usage{})
	_, used := restarted.Spent(ctx, "t1")
	assert.Equal(t, &envelope.Budget{Tokens: 1000}, used, "400 spent, 600 with the running subtask")
	restarted.SubtaskEnded(ctx, "t1", "sub1", &envelope.Budget{Tokens: 500})
	require.NoError(t, call(t, restarted, again, 90, 0), "990 spent")
	left, err := leftOf(restarted, again)
	require.NoError(t, err)
	assert.Equal(t, &envelope.Budget{Tokens: 10}, left)
	require.NoError(t, call(t, restarted, again, 20, 0))
	assert.Equal(t, "budget exhausted: the task used 1010 of its 1000 tokens", reasonOf(t, call(t, restarted, again, 1, 0)))

	third := budget.New(budget.Config{Books: b})
	_, end3 := third.Turn(ctx, taskTurn("t1", &envelope.Budget{Tokens: 1000}))
	defer end3(nil, agent.Usage{})
	_, used = third.Spent(ctx, "t1")
	assert.Equal(t, &envelope.Budget{Tokens: 1010}, used, "saved after every change")
}

// Accounts that cannot be read count from this process, and are not
// stored over; corrupt ones start from zero.
func TestUnreadableTaskAccounts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBooks()
	b.loadErr = assert.AnError
	b.state[budget.TasksKey] = []byte(`[{"task":"t1","budget":{"tokens":100},"tokens":70}]`)
	k := budget.New(budget.Config{Books: b})
	turn := taskTurn("t1", &envelope.Budget{Tokens: 100})
	_, end := k.Turn(ctx, turn)
	defer end(nil, agent.Usage{})
	require.NoError(t, call(t, k, turn, 40, 0), "the stored 70 cannot be read")
	assert.JSONEq(t, `[{"task":"t1","budget":{"tokens":100},"tokens":70}]`, string(b.state[budget.TasksKey]), "not stored over")
	b.mu.Lock()
	b.loadErr = nil
	b.mu.Unlock()
	_, used := k.Spent(ctx, "t1")
	assert.Equal(t, &envelope.Budget{Tokens: 110}, used, "read now, the stored count adds to this process's")

	c := newBooks()
	c.state[budget.TasksKey] = []byte("[{corrupt")
	k = budget.New(budget.Config{Books: c})
	turn = taskTurn("t2", &envelope.Budget{Tokens: 100})
	_, end2 := k.Turn(ctx, turn)
	defer end2(nil, agent.Usage{})
	require.NoError(t, call(t, k, turn, 5, 0))
	assert.JSONEq(t, `[{"task":"t2","budget":{"tokens":100},"tokens":5}]`, string(c.state[budget.TasksKey]))
}
