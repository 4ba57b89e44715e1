package mailbox_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// answer sends the agent loop's answer to an inbound message.
func (a *member) answer(t *testing.T, in bus.InboundMessage, text string, md map[string]any) {
	t.Helper()
	require.NoError(t, a.Send(context.Background(), bus.OutboundMessage{Channel: in.Channel,
		ChatID: in.ChatID, Content: text, Metadata: md}))
}

func tasksAre(ids ...string) func(envelope.Card) bool {
	return func(c envelope.Card) bool { return slices.Equal(c.CurrentTasks, ids) }
}

func TestTaskAcceptedRunsAndCompletes(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	boss := e.peer(t, "boss")
	req := task("boss", "coder", "t1", "write sort")
	e.deliver(t, req)

	acc := boss.expectUpdate(t, "t1", envelope.StateAccepted)
	assert.Equal(t, req.ID, acc.ReplyTo)
	assert.Equal(t, "coder", acc.From)
	in := a.consume(t)
	assert.Equal(t, "write sort", in.Content)
	busy := e.waitCard(t, "coder", "busy", tasksAre("t1"))
	assert.Equal(t, envelope.StatusBusy, busy.Status)
	listed, err := a.Agents(context.Background(), true)
	require.NoError(t, err)
	require.Len(t, listed, 1)
	assert.Equal(t, envelope.StatusBusy, listed[0].Effective)
	assert.Equal(t, 2, listed[0].FreeSlots())

	done := meta.WithReply(nil, meta.Reply{}) // answer without the state: completed
	for k, v := range in.Metadata {
		done[k] = v
	}
	a.answer(t, in, "func sortByMtime() {}", done)
	res := boss.expectUpdate(t, "t1", envelope.StateCompleted)
	assert.Equal(t, "func sortByMtime() {}", res.Text())
	assert.Equal(t, req.ID, res.ReplyTo)
	idle := e.waitCard(t, "coder", "idle", tasksAre())
	assert.Equal(t, envelope.StatusIdle, idle.Status)

	// The request was acknowledged only when the task ended.
	e.waitEvent(t, store.EventProcessed, req.ID)
	_, err = a.FinishTask(context.Background(), "t1", envelope.StateCompleted, "again", "", nil)
	assert.ErrorIs(t, err, mailbox.ErrTaskNotActive)
}

func TestTaskProgressKeepsTaskRunning(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	boss := e.peer(t, "boss")
	e.deliver(t, task("boss", "coder", "t1", "long job"))
	a.consume(t)
	_, err := a.FinishTask(context.Background(), "t1", envelope.StateWorking, "half way", "", nil)
	require.NoError(t, err)
	w := boss.expectUpdate(t, "t1", envelope.StateWorking)
	assert.Equal(t, "half way", w.Text())
	assert.Equal(t, []string{"t1"}, e.card(t, "coder").CurrentTasks)
	_, err = a.FinishTask(context.Background(), "nope", envelope.StateWorking, "", "", nil)
	assert.ErrorIs(t, err, mailbox.ErrTaskNotActive)
}

func TestTaskRejectedOverCapacity(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder", func(c *mailbox.Config) { c.MaxConcurrentTasks = 1 })
	boss := e.peer(t, "boss")
	e.deliver(t, task("boss", "coder", "t1", "first"))
	boss.expectUpdate(t, "t1", envelope.StateAccepted)
	in := a.consume(t)

	e.deliver(t, task("boss", "coder", "t2", "second"))
	rej := boss.expectUpdate(t, "t2", envelope.StateRejected)
	assert.Contains(t, rej.Task.Reason, "capacity")
	assert.Equal(t, []string{"t1"}, e.card(t, "coder").CurrentTasks)

	// failed frees the capacity like completed
	a.answer(t, in, "could not", meta.WithReply(in.Metadata,
		meta.Reply{State: envelope.StateFailed, Reason: "compiler missing"}))
	f := boss.expectUpdate(t, "t1", envelope.StateFailed)
	assert.Equal(t, "compiler missing", f.Task.Reason)
	e.waitCard(t, "coder", "freed", tasksAre())

	e.deliver(t, task("boss", "coder", "t3", "third"))
	boss.expectUpdate(t, "t3", envelope.StateAccepted)
	assert.Equal(t, "third", a.consume(t).Content)
}

func TestTaskRejectedDeadlinePassed(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	boss := e.peer(t, "boss")
	late := task("boss", "coder", "t-late", "too late")
	past := envelope.NewTime(time.Now().Add(-time.Minute))
	late.Task.Deadline = &past
	e.deliver(t, late)
	rej := boss.expectUpdate(t, "t-late", envelope.StateRejected)
	assert.Equal(t, "deadline passed", rej.Task.Reason)
	e.waitEvent(t, store.EventProcessed, late.ID)
	assert.Zero(t, a.bus.InboundDepth(), "a rejected task never reaches the agent")
}

func TestTaskDeclinedByJudge(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	var asked atomic.Int32
	a.SetJudge(func(_ context.Context, in bus.InboundMessage) (bool, string) {
		asked.Add(1)
		if in.Content == "paint a picture" {
			return false, "I write code, not pictures"
		}
		return true, ""
	})
	boss := e.peer(t, "boss")
	e.deliver(t, task("boss", "coder", "t-paint", "paint a picture"))
	rej := boss.expectUpdate(t, "t-paint", envelope.StateRejected)
	assert.Equal(t, "declined: I write code, not pictures", rej.Task.Reason)

	e.deliver(t, task("boss", "coder", "t-code", "write code"))
	boss.expectUpdate(t, "t-code", envelope.StateAccepted)
	assert.Equal(t, "write code", a.consume(t).Content)
	assert.EqualValues(t, 2, asked.Load())
}

func TestTaskDeadlinePassingFailsTask(t *testing.T) {
	e := newEnv(t)
	clk := clock.NewManual(time.Now())
	a := e.start(t, e.config("coder"), mailbox.Options{Clock: clk})
	boss := e.peer(t, "boss")
	req := task("boss", "coder", "t-soon", "hurry")
	soon := envelope.NewTime(clk.Now().Add(time.Minute))
	req.Task.Deadline = &soon
	e.deliver(t, req)
	boss.expectUpdate(t, "t-soon", envelope.StateAccepted)
	in := a.consume(t)
	clk.Add(time.Minute) // the deadline passes

	f := boss.expectUpdate(t, "t-soon", envelope.StateFailed)
	assert.Equal(t, "deadline passed", f.Task.Reason)
	e.waitCard(t, "coder", "freed", tasksAre())
	e.waitEvent(t, store.EventProcessed, req.ID)
	err := a.Send(context.Background(), bus.OutboundMessage{Channel: in.Channel, ChatID: in.ChatID,
		Content: "too late", Metadata: in.Metadata})
	assert.ErrorIs(t, err, mailbox.ErrTaskNotActive, "a late answer is refused, not sent")
}

func TestTaskTimeoutFailsTaskWithoutDeadline(t *testing.T) {
	e := newEnv(t)
	clk := clock.NewManual(time.Now())
	cfg := e.config("coder")
	cfg.TaskTimeout = 60
	e.start(t, cfg, mailbox.Options{Clock: clk})
	boss := e.peer(t, "boss")
	e.deliver(t, task("boss", "coder", "t-lost", "forgotten"))
	boss.expectUpdate(t, "t-lost", envelope.StateAccepted)
	clk.Add(time.Minute) // taskTimeout passes
	f := boss.expectUpdate(t, "t-lost", envelope.StateFailed)
	assert.Equal(t, "deadline passed", f.Task.Reason)
	e.waitCard(t, "coder", "freed", tasksAre())
}

func TestTaskCanceledBySender(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder", func(c *mailbox.Config) { c.MaxConcurrentTasks = 1 })
	boss := e.peer(t, "boss")
	req := task("boss", "coder", "t1", "work")
	e.deliver(t, req)
	boss.expectUpdate(t, "t1", envelope.StateAccepted)
	a.consume(t)
	e.waitCard(t, "coder", "busy", tasksAre("t1"))

	// A cancel from someone else is not honoured.
	forged := msg("mallory", "coder", envelope.TypeTaskUpdate, "")
	forged.Task = &envelope.Task{ID: "t1", State: envelope.StateCanceled}
	e.deliver(t, forged)
	a.consume(t)
	assert.Equal(t, []string{"t1"}, e.card(t, "coder").CurrentTasks)

	cancel := msg("boss", "coder", envelope.TypeTaskUpdate, "never mind")
	cancel.Task = &envelope.Task{ID: "t1", State: envelope.StateCanceled}
	e.deliver(t, cancel)
	in := a.consume(t)
	assert.Contains(t, in.Content, "[task t1 canceled by boss]")
	assert.Equal(t, envelope.StateCanceled, metaOf(t, in).Task.State)
	e.waitCard(t, "coder", "freed", tasksAre())
	e.waitEvent(t, store.EventProcessed, req.ID)
	e.waitEvent(t, store.EventProcessed, cancel.ID)

	e.deliver(t, task("boss", "coder", "t2", "next"))
	boss.expectUpdate(t, "t2", envelope.StateAccepted)
}

func TestDuplicateTaskRequestIgnored(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	e.peer(t, "boss")
	e.deliver(t, task("boss", "coder", "t1", "once"))
	a.consume(t)
	again := task("boss", "coder", "t1", "twice") // new message, same task id
	e.deliver(t, again)
	e.waitEvent(t, store.EventProcessed, again.ID)
	assert.Zero(t, a.bus.InboundDepth(), "the agent already works on it")
	assert.Equal(t, []string{"t1"}, e.card(t, "coder").CurrentTasks)
}

func TestUnfinishedTaskComesBackAfterRestart(t *testing.T) {
	e := newEnv(t)
	cfg := e.config("coder")
	a := e.start(t, cfg, mailbox.Options{})
	boss := e.peer(t, "boss")
	req := task("boss", "coder", "t1", "survive")
	e.deliver(t, req)
	boss.expectUpdate(t, "t1", envelope.StateAccepted)
	a.consume(t)
	require.NoError(t, a.Stop(context.Background()))

	b := e.start(t, cfg, mailbox.Options{})
	in := b.consume(t)
	md := metaOf(t, in)
	assert.Equal(t, req.ID, md.MessageID)
	assert.True(t, md.Redelivered, "a task claimed but not finished is handed out again")
	b.answer(t, in, "done", in.Metadata)
	boss.expectUpdate(t, "t1", envelope.StateCompleted)
}

// A task that ends while the channel stops must not write its card after
// Stop marked the agent offline: the agent would look idle and online.
func TestTaskEndingDuringStopLeavesAgentOffline(t *testing.T) {
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	e.peer(t, "boss")
	e.deliver(t, task("boss", "coder", "t1", "work"))
	a.consume(t)
	e.waitCard(t, "coder", "busy", tasksAre("t1"))

	gate := e.store.holdNextCardUpdate()
	finished := make(chan error, 1)
	go func() {
		_, err := a.FinishTask(context.Background(), "t1", envelope.StateCompleted, "done", "", nil)
		finished <- err
	}()
	select {
	case <-gate.entered: // the task's card update is under way
	case <-time.After(testkit.WaitLimit):
		t.Fatal("FinishTask did not update the card")
	}
	stopped := make(chan error, 1)
	go func() { stopped <- a.Stop(context.Background()) }()
	// Stop may not overtake the card update; give it the chance to (wrongly) do so.
	select {
	case <-stopped:
		stopped <- nil
	case <-time.After(100 * time.Millisecond):
	}
	close(gate.release)
	for _, ch := range []chan error{finished, stopped} {
		select {
		case <-ch:
		case <-time.After(testkit.WaitLimit):
			t.Fatal("FinishTask or Stop did not return")
		}
	}
	c := e.card(t, "coder")
	assert.Equal(t, envelope.StatusOffline, c.Status)
	assert.Empty(t, c.CurrentTasks)
}
