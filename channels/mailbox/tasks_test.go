package mailbox_test

import (
	"context"
	"path/filepath"
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
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
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

	// A cancel from someone else is not honoured: it is set aside.
	forged := msg("mallory", "coder", envelope.TypeTaskUpdate, "")
	forged.Task = &envelope.Task{ID: "t1", State: envelope.StateCanceled}
	e.deliver(t, forged)
	assert.Equal(t, "task_update of task t1, which coder did not send to mallory",
		e.waitEvent(t, store.EventRefused, forged.ID).Reason)
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

// The answer to a task canceled while its turn ran is dropped quietly:
// the delegator gets no final update of a task it canceled, and the
// sender of the answer no error (the turn's message is handled). An
// answer to a task that simply is not held is still an error.
func TestAnswerToACanceledTaskIsDropped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.startAgent(t, "coder")
	boss := e.peer(t, "boss")
	req := task("boss", "coder", "t1", "work")
	e.deliver(t, req)
	boss.expectUpdate(t, "t1", envelope.StateAccepted)
	in := a.take(t) // the turn on t1, under way
	cancel := msg("boss", "coder", envelope.TypeTaskUpdate, "never mind")
	cancel.Task = &envelope.Task{ID: "t1", State: envelope.StateCanceled}
	e.deliver(t, cancel)
	e.waitEvent(t, store.EventProcessed, req.ID)
	assert.True(t, a.Canceled("t1"))
	assert.False(t, a.Canceled("t2"))

	ctx := context.Background()
	require.NoError(t, a.Send(ctx, bus.OutboundMessage{Channel: in.Channel, ChatID: in.ChatID, Content: "done anyway",
		Metadata: in.Metadata}), "the answer of a canceled task goes nowhere, without an error")
	_, err := a.FinishTask(ctx, "t9", envelope.StateCompleted, "x", "", nil)
	assert.ErrorIs(t, err, mailbox.ErrTaskNotActive, "a task never held is still an error")

	// The next message boss gets from coder is the acceptance of t2, not
	// an update of t1.
	e.deliver(t, task("boss", "coder", "t2", "next"))
	next := boss.expect(t, "the next update", func(m *envelope.Message) bool { return m.Type == envelope.TypeTaskUpdate })
	assert.Equal(t, "t2", next.Task.ID)
}

// When a task ends, each side's handled messages of the task move to its
// archive/by-task/<task>/; the conversation stays readable as a thread.
func TestTaskEndSweepsItsMessages(t *testing.T) {
	w := newConvWorld(t)
	lead, coder := w.start("lead"), w.start("coder")
	taskMsg := lead.post(t, route.Request{To: "coder", Type: envelope.TypeTask, Text: "sort 3 1 2", TaskID: "sort-1"})
	coder.next(t)
	accepted := lead.next(t)
	am, _ := meta.Of(accepted.Metadata)
	w.seen.waitFor(t, store.EventProcessed, am.MessageID)
	// A question inside the task, answered before the task ends.
	q := coder.post(t, route.Request{To: "lead", Text: "ascending?", ExpectsReply: true, TaskID: "sort-1"})
	qin := lead.next(t)
	lead.post(t, route.Request{To: "coder", Text: "yes", ReplyTo: q, Parent: func() *meta.Meta { m, _ := meta.Of(qin.Metadata); return m }()})
	answer := coder.next(t)
	anm, _ := meta.Of(answer.Metadata)
	w.seen.waitFor(t, store.EventProcessed, anm.MessageID)

	done, err := coder.FinishTask(context.Background(), "sort-1", envelope.StateCompleted, "1 2 3", "", nil)
	require.NoError(t, err)
	final := lead.next(t)
	assert.Equal(t, "[task sort-1 completed by coder]\n1 2 3", final.Content)
	for _, id := range []string{taskMsg, anm.MessageID, am.MessageID, q, done.ID} {
		w.seen.waitFor(t, store.EventSwept, id) // one sweep moves several, in no set order
	}

	where := map[string]string{}
	require.NoError(t, w.store.Browse(context.Background(), func(s store.Stored) bool {
		where[s.Message.ID] = s.Agent + " " + filepath.Dir(s.Ref)
		return true
	}))
	byTask := func(agent string) string { return agent + " " + filepath.Join(agent, "archive", "by-task", "sort-1") }
	assert.Equal(t, byTask("coder"), where[taskMsg], "the request, at the worker")
	assert.Equal(t, byTask("coder"), where[anm.MessageID], "the answer to the worker's question")
	assert.Equal(t, byTask("lead"), where[am.MessageID], "the accepted update, at the delegator")
	assert.Equal(t, byTask("lead"), where[q], "the worker's question")
	assert.Equal(t, byTask("lead"), where[done.ID], "the final update")

	chain, err := view.Thread(context.Background(), w.st, done.ID)
	require.NoError(t, err)
	var ids []string
	for _, e := range chain {
		ids = append(ids, e.Message.ID)
		assert.Equal(t, store.BoxArchive, e.Box)
	}
	assert.Contains(t, ids, taskMsg)
	assert.Contains(t, ids, done.ID)
	assert.Empty(t, lead.PendingReplies("sort-1").Awaited)
	assert.Empty(t, coder.PendingReplies("sort-1").Owed)
}

// A rejected task is swept at once at the worker.
func TestRejectedTaskIsSwept(t *testing.T) {
	w := newConvWorld(t)
	lead, _ := w.start("lead"), w.start("coder")
	past := time.Now().Add(-time.Hour)
	id := lead.post(t, route.Request{To: "coder", Type: envelope.TypeTask, Text: "too late", TaskID: "late-1", Deadline: past})
	ev := w.seen.waitFor(t, store.EventSwept, id)
	assert.Equal(t, "coder", ev.Agent)
	assert.Equal(t, filepath.Join("archive", "by-task", "late-1"), filepath.Dir(ev.Ref))
}
