package mailbox_test

import (
	"context"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// books is an agent's budgets as the test sets them: Spent answers from
// spent, SubtaskEnded is recorded.
type books struct {
	budget, used *envelope.Budget

	mu    sync.Mutex
	ended []string
}

func (b *books) Spent(_ context.Context, _ string) (*envelope.Budget, *envelope.Budget) {
	return b.budget, b.used
}

func (b *books) SubtaskEnded(_ context.Context, parent, sub string, used *envelope.Budget) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tokens := int64(-1)
	if used != nil {
		tokens = used.Tokens
	}
	b.ended = append(b.ended, parent+"<"+sub+":"+itoa(tokens))
}

func (b *books) charged() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.ended...)
}

func itoa(n int64) string {
	if n < 0 {
		return "nil"
	}
	return strconv.FormatInt(n, 10)
}

// chainOf starts boss (played by the test), mid and coder; boss gives mid
// task t1 with a budget of 1000, and mid delegates a subtask to coder
// from it. It returns the subtask's message and mid's inbound t1.
func chainOf(t *testing.T, e *env, mid, coder *member) (*envelope.Message, bus.InboundMessage) {
	t.Helper()
	t1 := task("boss", "mid", "t1", "ask coder to sort 5 3 9 1")
	t1.Task.Budget = &envelope.Budget{Tokens: 1000}
	e.deliver(t, t1)
	in := mid.take(t)
	mt := metaOf(t, in)
	here := &envelope.Callback{Channel: in.Channel, ChatID: in.ChatID, SessionID: in.SessionKey()}
	sub, err := mid.Post(context.Background(), route.Request{To: "coder", Type: envelope.TypeTask,
		Text: "sort 5 3 9 1", Parent: mt, Callback: here, Budget: &envelope.Budget{Tokens: 200}})
	require.NoError(t, err)
	assert.Equal(t, &envelope.Budget{Tokens: 200}, sub.Task.Budget)
	coder.take(t)
	return sub, in
}

// A subtask out of budget fails the task it was delegated from with the
// same reason, even after that task's agent answered it ("I asked coder
// ..." is progress while the subtask runs); both final updates report
// what was used, and the delegator charges the subtask's usage.
func TestSubtaskOutOfBudgetFailsItsParent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	boss := e.peer(t, "boss")
	mid, coder := e.startAgent(t, "mid"), e.startAgent(t, "coder")
	midBooks := &books{budget: &envelope.Budget{Tokens: 1000}, used: &envelope.Budget{Tokens: 620}}
	mid.SetBudgets(midBooks)
	coder.SetBudgets(&books{budget: &envelope.Budget{Tokens: 200}, used: &envelope.Budget{Tokens: 420}})
	ctx := context.Background()
	sub, _ := chainOf(t, e, mid, coder)

	_, err := mid.FinishTask(ctx, "t1", envelope.StateCompleted, "I asked coder to sort 5 3 9 1", "", nil)
	require.NoError(t, err)
	progress := boss.expectUpdate(t, "t1", envelope.StateWorking)
	assert.Equal(t, "I asked coder to sort 5 3 9 1", progress.Text(), "not done while its subtask runs")
	assert.Nil(t, progress.Task.Used, "only the final update reports usage")

	const reason = "budget exhausted: the task used 420 of its 200 tokens"
	_, err = coder.FinishTask(ctx, sub.Task.ID, envelope.StateFailed, "", reason, nil)
	require.NoError(t, err)
	failed := boss.expectUpdate(t, "t1", envelope.StateFailed)
	assert.Equal(t, reason, failed.Task.Reason, "the parent fails with the subtask's reason")
	assert.Equal(t, &envelope.Budget{Tokens: 1000}, failed.Task.Budget)
	assert.Equal(t, &envelope.Budget{Tokens: 620}, failed.Task.Used)
	assert.Equal(t, []string{"t1<" + sub.Task.ID + ":420"}, midBooks.charged(), "the subtask's report is charged to t1")
	assert.Empty(t, e.card(t, "mid").CurrentTasks, "mid's task ended")
	_, err = mid.FinishTask(ctx, "t1", envelope.StateCompleted, "late", "", nil)
	assert.ErrorIs(t, err, mailbox.ErrTaskNotActive)
}

// A task whose subtask ends well ends with the agent's answer to the
// subtask's result, routed back to the task's conversation; a failure
// other than a spent budget is the agent's to answer too.
func TestTaskEndsWithTheAnswerToItsSubtasksResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	boss := e.peer(t, "boss")
	mid, coder := e.startAgent(t, "mid"), e.startAgent(t, "coder")
	ctx := context.Background()
	sub, in := chainOf(t, e, mid, coder)
	_, err := mid.FinishTask(ctx, "t1", envelope.StateCompleted, "I asked coder", "", nil)
	require.NoError(t, err)
	boss.expectUpdate(t, "t1", envelope.StateWorking)

	_, err = coder.FinishTask(ctx, sub.Task.ID, envelope.StateCompleted, "1 3 5 9", "", nil)
	require.NoError(t, err)
	result := mid.takeUntil(t, "the subtask's result", func(r bus.InboundMessage) bool {
		m := metaOf(t, r)
		return m.Task != nil && m.Task.ID == sub.Task.ID && m.Task.State == envelope.StateCompleted
	})
	assert.Equal(t, in.SessionKey(), result.SessionKey(), "routed to t1's conversation")
	require.NoError(t, mid.Send(ctx, bus.OutboundMessage{Channel: result.Channel, ChatID: result.ChatID,
		Content: "coder finished: 1 3 5 9", Metadata: result.Metadata}))
	done := boss.expectUpdate(t, "t1", envelope.StateCompleted)
	assert.Equal(t, "coder finished: 1 3 5 9", done.Text())
	assert.Nil(t, done.Task.Used, "no budgets installed: nothing reported")
}
