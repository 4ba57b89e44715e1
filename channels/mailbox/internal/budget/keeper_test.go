package budget_test

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/budget"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// books keeps a keeper's records in memory.
type books struct {
	mu      sync.Mutex
	events  []budget.Entry
	state   map[string][]byte
	loadErr error
}

func newBooks() *books { return &books{state: map[string][]byte{}} }

func (b *books) RecordUsage(_ context.Context, ev budget.Entry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events = append(b.events, ev)
}

func (b *books) LoadState(_ context.Context, key string) ([]byte, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state[key], b.loadErr
}

func (b *books) SaveState(_ context.Context, key string, data []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.state[key] = data
	return nil
}

func (b *books) recorded() []budget.Entry {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]budget.Entry(nil), b.events...)
}

// taskTurn is a turn working on task id from boss, with budget b.
func taskTurn(id string, b *envelope.Budget) *agent.Turn {
	mt := meta.Meta{MessageID: "m-" + id, From: "boss", To: "worker", Type: envelope.TypeTask, ThreadID: "th-" + id,
		Task: &envelope.Task{ID: id, State: envelope.StatePending, Budget: b}}
	return agent.NewTurn(bus.InboundMessage{Channel: "mailbox", ChatID: "boss", SenderID: "boss", ID: "m-" + id,
		Metadata: meta.With(nil, mt)})
}

func userTurn() *agent.Turn {
	return agent.NewTurn(bus.InboundMessage{Channel: "feishu", ChatID: "u1", SenderID: "ou_1", ID: "om_1", Content: "hi"})
}

// call makes one provider call through k in turn t that costs in+out
// tokens; it returns the keeper's refusal.
func call(t *testing.T, k *budget.Keeper, turn *agent.Turn, in, out int64) error {
	t.Helper()
	req := &agent.Request{Model: "m-asked"}
	_, end, err := k.Chat(context.Background(), turn, req)
	if err != nil {
		end(nil, err)
		return err
	}
	end(&agent.Response{Content: "ok", Model: "m-1", Usage: agent.Usage{InputTokens: in, OutputTokens: out}}, nil)
	return nil
}

// leftOf asks k for the budget of a task delegated in turn, and sends
// nothing.
func leftOf(k *budget.Keeper, turn *agent.Turn) (*envelope.Budget, error) {
	b, settle, err := k.Hand(turn)
	settle("")
	return b, err
}

func reasonOf(t *testing.T, err error) string {
	t.Helper()
	var tf *agent.TaskFailure
	require.True(t, errors.As(err, &tf), "a refusal is a *TaskFailure: %v", err)
	return tf.Reason
}

func TestTaskBudgetIsSpentThenRefused(t *testing.T) {
	t.Parallel()
	b := newBooks()
	k := budget.New(budget.Config{Books: b})
	turn := taskTurn("t1", &envelope.Budget{Tokens: 100})
	_, end := k.Turn(context.Background(), turn)
	require.NoError(t, call(t, k, turn, 50, 10))
	left, err := leftOf(k, turn)
	require.NoError(t, err)
	assert.Equal(t, &envelope.Budget{Tokens: 40}, left, "a delegation carries what is left")
	require.NoError(t, call(t, k, turn, 35, 10), "40 left: the call is made")
	err = call(t, k, turn, 1, 1)
	assert.Equal(t, "budget exhausted: the task used 105 of its 100 tokens", reasonOf(t, err))
	_, err = leftOf(k, turn)
	assert.Contains(t, reasonOf(t, err), "budget exhausted", "nothing is left to delegate")
	end(err, agent.Usage{InputTokens: 85, OutputTokens: 20})

	assert.Equal(t, []budget.Entry{{MessageID: "m-t1", ThreadID: "th-t1", TaskID: "t1",
		Model: "m-1", InputTokens: 85, OutputTokens: 20}}, b.recorded(), "one usage entry per turn")

	again := taskTurn("t1", &envelope.Budget{Tokens: 100}) // a later turn of the same task
	_, end2 := k.Turn(context.Background(), again)
	assert.Contains(t, reasonOf(t, call(t, k, again, 1, 1)), "budget exhausted", "the account is the task's, not the turn's")
	end2(nil, agent.Usage{})
	assert.Len(t, b.recorded(), 1, "a turn that cost nothing records nothing")
	assert.Equal(t, budget.Stats{TaskRefusals: 2}, k.Stats(), "two calls refused; Left refuses no call")
}

func TestCostBudgetCountsAtTheConfiguredPrices(t *testing.T) {
	t.Parallel()
	k := budget.New(budget.Config{InputPrice: 2, OutputPrice: 10}) // per million tokens
	turn := taskTurn("t1", &envelope.Budget{Cost: 0.003})
	_, end := k.Turn(context.Background(), turn)
	defer end(nil, agent.Usage{})
	require.NoError(t, call(t, k, turn, 500, 100)) // 0.001 + 0.001
	left, err := leftOf(k, turn)
	require.NoError(t, err)
	assert.InDelta(t, 0.001, left.Cost, 1e-12)
	assert.Zero(t, left.Tokens, "no token bound is invented")
	require.NoError(t, call(t, k, turn, 500, 100))
	assert.Contains(t, reasonOf(t, call(t, k, turn, 1, 1)), "budget exhausted: the task cost 0.004 of its 0.003")
}

func TestTasksWithoutABudgetGetTheConfiguredOne(t *testing.T) {
	t.Parallel()
	k := budget.New(budget.Config{TaskTokens: 5000})
	turn := userTurn()
	_, end := k.Turn(context.Background(), turn)
	defer end(nil, agent.Usage{})
	require.NoError(t, call(t, k, turn, 900, 100), "a user's turn has no budget of its own")
	left, err := leftOf(k, turn)
	require.NoError(t, err)
	assert.Equal(t, &envelope.Budget{Tokens: 5000}, left)

	none := budget.New(budget.Config{})
	left, err = leftOf(none, turn)
	require.NoError(t, err)
	assert.Nil(t, left, "no budget configured: tasks carry none")
}

func TestRoutedUpdateIsNotChargedToTheDelegatedTask(t *testing.T) {
	t.Parallel()
	k := budget.New(budget.Config{})
	mt := meta.Meta{MessageID: "u1", From: "coder", Type: envelope.TypeTaskUpdate,
		Task:     &envelope.Task{ID: "t9", State: envelope.StateCompleted, Budget: &envelope.Budget{Tokens: 1}},
		Callback: &envelope.Callback{Channel: "feishu", ChatID: "u1"}}
	turn := agent.NewTurn(bus.InboundMessage{Channel: "feishu", ChatID: "u1", Metadata: meta.With(nil, mt)})
	_, end := k.Turn(context.Background(), turn)
	defer end(nil, agent.Usage{})
	require.NoError(t, call(t, k, turn, 100, 100))
	require.NoError(t, call(t, k, turn, 100, 100), "the worker counts that task's budget, not the delegator")
}

func TestDailyCapSurvivesARestartAndResetsAtMidnight(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 5, 2, 22, 0, 0, 0, time.UTC)
	clk := clock.NewManual(start)
	b := newBooks()
	k := budget.New(budget.Config{DailyTokens: 1000, Clock: clk, Books: b})
	turn := userTurn()
	_, end := k.Turn(context.Background(), turn)
	require.NoError(t, call(t, k, turn, 600, 100))
	end(nil, agent.Usage{InputTokens: 600, OutputTokens: 100})

	restarted := budget.New(budget.Config{DailyTokens: 1000, Clock: clk, Books: b})
	turn = userTurn()
	_, end = restarted.Turn(context.Background(), turn)
	require.NoError(t, call(t, restarted, turn, 300, 50), "700 of 1000 used before the restart")
	err := call(t, restarted, turn, 1, 1)
	assert.Equal(t, "daily token cap reached: 1050 of 1000 tokens used today (channels.mailbox.budget.dailyTokens); it resets at midnight",
		reasonOf(t, err))
	end(err, agent.Usage{InputTokens: 300, OutputTokens: 50})

	clk.Set(time.Date(2026, 5, 3, 0, 0, 1, 0, time.UTC))
	turn = userTurn()
	_, end = restarted.Turn(context.Background(), turn)
	defer end(nil, agent.Usage{})
	require.NoError(t, call(t, restarted, turn, 10, 10), "a new day, a new count")
	assert.JSONEq(t, `{"day":"2026-05-03","tokens":20}`, string(b.state[budget.StateKey]))
}

func TestDailyCapCountsJudgementsAndRecordsThem(t *testing.T) {
	t.Parallel()
	b := newBooks()
	k := budget.New(budget.Config{DailyTokens: 100, Books: b})
	require.NoError(t, call(t, k, nil, 80, 20)) // a task judgement has no turn
	assert.Contains(t, reasonOf(t, call(t, k, nil, 1, 1)), "daily token cap reached")
	assert.Equal(t, []budget.Entry{{Judgement: true, Model: "m-1",
		InputTokens: 80, OutputTokens: 20}}, b.recorded())
	assert.Equal(t, budget.Stats{DailyRefusals: 1}, k.Stats())
}

// A provider's count is not trusted: a negative one does not lower the
// day's count, and a huge one holds it at its largest value.
func TestDailyCapIgnoresInsaneCounts(t *testing.T) {
	t.Parallel()
	k := budget.New(budget.Config{DailyTokens: 100, Books: newBooks()})
	require.NoError(t, call(t, k, nil, -1000, 0))
	require.NoError(t, call(t, k, nil, 80, 20))
	assert.Contains(t, reasonOf(t, call(t, k, nil, 1, 1)), "daily token cap reached: 100 of 100")
	k = budget.New(budget.Config{DailyTokens: 100, Books: newBooks()})
	require.NoError(t, call(t, k, nil, 50, 0))
	require.NoError(t, call(t, k, nil, 0, math.MaxInt64), "the cap is checked before each call")
	assert.Contains(t, reasonOf(t, call(t, k, nil, 1, 1)), "daily token cap reached: 9223372036854775807 of 100")
}

func TestUnreadableDayCountsFromThisProcess(t *testing.T) {
	t.Parallel()
	clk := clock.NewManual(time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC))
	b := newBooks()
	b.loadErr = errors.New("disk on fire")
	b.state[budget.StateKey] = []byte(`{"day":"2026-05-02","tokens":30}`)
	k := budget.New(budget.Config{DailyTokens: 100, Books: b, Clock: clk})
	turn := userTurn()
	_, end := k.Turn(context.Background(), turn)
	defer end(nil, agent.Usage{})
	require.NoError(t, call(t, k, turn, 75, 0), "the stored count cannot be read: the call is counted here")
	assert.JSONEq(t, `{"day":"2026-05-02","tokens":30}`, string(b.state[budget.StateKey]), "the stored count is not overwritten")
	b.mu.Lock()
	b.loadErr = nil
	b.mu.Unlock()
	assert.Contains(t, reasonOf(t, call(t, k, turn, 1, 0)), "105 of 100", "read now, the stored count adds to this process's")

	c := newBooks()
	c.state[budget.StateKey] = []byte("{corrupt")
	k = budget.New(budget.Config{DailyTokens: 100, Books: c, Clock: clk})
	require.NoError(t, call(t, k, nil, 60, 0), "a corrupt count starts from zero")
	assert.JSONEq(t, `{"day":"2026-05-02","tokens":60}`, string(c.state[budget.StateKey]))
}

// A turn whose process stops before it ends (killed while it waits for a
// tool or an approval) still has its calls recorded: the next keeper of
// the agent records them, marked CutShort, before its first turn, once.
// A turn that ends leaves nothing behind.
func TestUsageOfATurnCutShortIsRecordedAtTheNextStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBooks()
	k := budget.New(budget.Config{Books: b})
	done := taskTurn("t0", nil)
	_, end := k.Turn(ctx, done)
	require.NoError(t, call(t, k, done, 10, 5))
	end(nil, agent.Usage{InputTokens: 10, OutputTokens: 5})
	cut := taskTurn("t1", nil)
	k.Turn(ctx, cut) // never ended: the process is killed
	require.NoError(t, call(t, k, cut, 400, 20))
	require.NoError(t, call(t, k, cut, 30, 7))
	require.Len(t, b.recorded(), 1, "only the turn that ended")

	restarted := budget.New(budget.Config{Books: b})
	next := taskTurn("t2", nil)
	_, end = restarted.Turn(ctx, next)
	require.NoError(t, call(t, restarted, next, 1, 1))
	end(nil, agent.Usage{InputTokens: 1, OutputTokens: 1})
	assert.Equal(t, []budget.Entry{
		{MessageID: "m-t0", ThreadID: "th-t0", TaskID: "t0", Model: "m-1", InputTokens: 10, OutputTokens: 5},
		{MessageID: "m-t1", ThreadID: "th-t1", TaskID: "t1", Model: "m-1", InputTokens: 430, OutputTokens: 27, CutShort: true},
		{MessageID: "m-t2", ThreadID: "th-t2", TaskID: "t2", Model: "m-1", InputTokens: 1, OutputTokens: 1},
	}, b.recorded())

	again := budget.New(budget.Config{Books: b})
	_, end = again.Turn(ctx, taskTurn("t3", nil))
	end(nil, agent.Usage{})
	assert.Len(t, b.recorded(), 3, "recorded once")
}

// A corrupt record of the turns under way is dropped (with a warning),
// and replaced: the agent's turns go on.
func TestCorruptInflightRecordIsDropped(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := newBooks()
	require.NoError(t, b.SaveState(ctx, budget.InflightKey, []byte("{garbage")))
	k := budget.New(budget.Config{Books: b})
	turn := taskTurn("t1", nil)
	_, end := k.Turn(ctx, turn)
	require.NoError(t, call(t, k, turn, 3, 4))
	end(nil, agent.Usage{InputTokens: 3, OutputTokens: 4})
	assert.Equal(t, []budget.Entry{{MessageID: "m-t1", ThreadID: "th-t1", TaskID: "t1", Model: "m-1", InputTokens: 3, OutputTokens: 4}},
		b.recorded())
	data, err := b.LoadState(ctx, budget.InflightKey)
	require.NoError(t, err)
	assert.JSONEq(t, "[]", string(data), "nothing under way")
}
