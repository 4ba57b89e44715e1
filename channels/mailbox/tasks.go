package mailbox

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// This file is the life of a task this agent works on, once the receive
// path's onTask has accepted it: its progress and its end (FinishTask,
// reached through Send), its deadline, a cancel by its delegator, the
// subtasks it waits for, and a subtask whose refusal or spent budget
// fails it. The tasks this agent delegated are delegated.go's.

// answerTask sends a task_update for the task in mt back to its sender.
func (c *Channel) answerTask(ctx context.Context, mt meta.Meta, state envelope.TaskState, reason string) {
	_, err := c.Post(ctx, route.Request{To: mt.From, Type: envelope.TypeTaskUpdate, TaskID: mt.Task.ID,
		TaskState: state, Reason: reason, Parent: &mt, ReplyTo: mt.MessageID})
	if err != nil {
		c.Logger().Error("task update not sent", "task", mt.Task.ID, "state", state, "err", err)
	}
}

// FinishTask ends a task this agent works on: it sends the task_update
// (completed, failed or canceled, with the result text and parts), frees the
// capacity and acknowledges the request. The agent loop's reply to a task
// message arrives here through Send. A non-terminal state (working) is
// reported without ending the task, and so is completed while a subtask
// delegated from the task runs (awaitsSubtasks). The final update reports
// what the task used beside its budget (SetBudgets).
func (c *Channel) FinishTask(ctx context.Context, taskID string, state envelope.TaskState, text, reason string, parts []envelope.Part) (*envelope.Message, error) {
	if !state.Terminal() {
		t, ok := c.active.Get(taskID)
		if !ok {
			return nil, fmt.Errorf("update task %s: %w", taskID, ErrTaskNotActive)
		}
		return c.Post(ctx, route.Request{To: t.Meta.From, Type: envelope.TypeTaskUpdate, TaskID: taskID,
			TaskState: state, Text: text, Parts: parts, Parent: &t.Meta, ReplyTo: t.Meta.MessageID})
	}
	if state == envelope.StateCompleted && c.active.Has(taskID) && c.awaitsSubtasks(taskID) {
		// Not done while a subtask runs: the answer is progress, and the
		// task ends with the answer to its last subtask's result.
		return c.FinishTask(ctx, taskID, envelope.StateWorking, text, "", parts)
	}
	t, ok := c.active.Take(taskID, "")
	if !ok {
		return nil, fmt.Errorf("finish task %s: %w (it ended already, or was never accepted here)", taskID, ErrTaskNotActive)
	}
	c.waiting.done(taskID, "")
	c.cardChanged(ctx)
	budget, used := c.spent(ctx, taskID)
	final := route.Request{To: t.Meta.From, Type: envelope.TypeTaskUpdate, TaskID: taskID,
		TaskState: state, Reason: reason, Text: text, Parts: parts, Parent: &t.Meta, ReplyTo: t.Meta.MessageID,
		Budget: budget, Used: used}
	msg, err := c.Post(ctx, final)
	var u *undelivered
	if errors.As(err, &u) && permanent(u.err) {
		// The answer itself cannot be sent (too large, say): the task
		// fails with why, rather than end without a word.
		c.Logger().Warn("task's answer cannot be sent; the task fails with why", "task", taskID, "err", u.err)
		final.TaskState, final.Reason, final.Text, final.Parts = envelope.StateFailed, "its answer could not be sent: "+u.err.Error(), "", nil
		msg, err = c.Post(ctx, final)
	}
	if errors.As(err, &u) && c.owe(ctx, u, func() {
		ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
		defer cancel()
		c.recordTaskTotal(ctx, u.msg)
		c.ackEnded(ctx, t, taskID)
	}) {
		// Kept and sent again; the request stays claimed until it goes.
		return u.msg, nil
	}
	if err == nil {
		c.recordTaskTotal(ctx, msg)
	}
	c.ackEnded(ctx, t, taskID)
	return msg, err
}

// ackEnded acknowledges the request of a task that ended and archives its
// messages.
func (c *Channel) ackEnded(ctx context.Context, t *ledger.Accepted, taskID string) {
	if err := c.inbox.Ack(context.WithoutCancel(ctx), t.Delivery); err != nil {
		c.Logger().Warn("acknowledge ended task", "task", taskID, "err", err)
		return
	}
	ledger.Sweep(ctx, c.inbox, taskID, c.Logger())
}

// expireTask fails a task whose deadline (or taskTimeout) passed.
func (c *Channel) expireTask(taskID string) {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if _, err := c.FinishTask(ctx, taskID, envelope.StateFailed, "", "deadline passed", nil); err != nil {
		c.Logger().Debug("expire task", "task", taskID, "err", err)
	}
}

// canceledTasks remembers the last tasks canceled while this process
// held them, so that an approval their turn asks for after the cancel
// (the turn was already under way) is denied at once (Channel.Canceled).
// It holds at most size ids, forgetting the oldest first.
type canceledTasks struct {
	mu    sync.Mutex
	size  int
	ids   map[string]bool
	order []string // oldest first
}

func newCanceledTasks(size int) *canceledTasks {
	return &canceledTasks{size: size, ids: map[string]bool{}}
}

func (c *canceledTasks) add(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids[id] {
		return
	}
	if len(c.order) == c.size {
		delete(c.ids, c.order[0])
		c.order = c.order[1:]
	}
	c.order = append(c.order, id)
	c.ids[id] = true
}

func (c *canceledTasks) has(id string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ids[id]
}

// Canceled reports whether task taskID, which this agent was given, was
// canceled by its delegator while this process held it: work on it is
// dropped, and an approval asked for it is denied (ByCancel).
func (c *Channel) Canceled(taskID string) bool {
	return taskID != "" && c.canceled.has(taskID)
}

// A task is kept open while the subtasks delegated from it run. An
// agent that delegates part of its task answers the task in the same turn
// ("I asked coder to ..."); that answer does not end the task while a
// subtask runs: it goes to the delegator as progress (working), and the
// task ends with the agent's answer to the result of its last subtask,
// routed back to the task's conversation. So the result, or the failure,
// of work at the bottom of a tree travels up to the conversation the tree
// began in, the task's budget counts what its subtasks spent, and a
// subtask that failed for a broken tree or a spent budget can fail its
// parent (failParent).

// waiting are the subtasks, by the task they were delegated from, whose
// result the agent has not answered yet.
type waiting struct {
	mu     sync.Mutex
	byTask map[string]map[string]bool
}

func newWaiting() *waiting { return &waiting{byTask: map[string]map[string]bool{}} }

// add records that task parent waits for subtask sub.
func (w *waiting) add(parent, sub string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.byTask[parent] == nil {
		w.byTask[parent] = map[string]bool{}
	}
	w.byTask[parent][sub] = true
}

// done records that the result of sub was answered ("": parent ended,
// it waits for nothing).
func (w *waiting) done(parent, sub string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if sub == "" {
		delete(w.byTask, parent)
		return
	}
	delete(w.byTask[parent], sub)
	if len(w.byTask[parent]) == 0 {
		delete(w.byTask, parent)
	}
}

// resume records, at start, that the tasks delegated from a task before
// a restart are waited for, as when they were sent: the records alone
// cannot tell, since taking in a subtask's result ends its record before
// the agent answers the updates that came before it.
func (w *waiting) resume(open []ledger.Record) {
	for _, r := range open {
		if r.ParentTask != "" {
			w.add(r.ParentTask, r.TaskID)
		}
	}
}

// has reports whether parent waits for a subtask.
func (w *waiting) has(parent string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.byTask[parent]) > 0
}

// awaitsSubtasks reports whether task taskID, which this agent works on,
// waits for the result of a subtask: one whose result it has not
// answered, or (after a restart) one still open in the records of what it
// delegated.
func (c *Channel) awaitsSubtasks(taskID string) bool {
	if c.waiting.has(taskID) {
		return true
	}
	_, sent, _, err := c.state()
	return err == nil && len(sent.Subtasks(taskID)) > 0
}

// subtaskSent records that the task msg, sent while working on task
// parent, is waited for.
func (c *Channel) subtaskSent(msg *envelope.Message, parent *meta.Tree) {
	if msg.Type == envelope.TypeTask && parent != nil && parent.Task != "" && c.active.Has(parent.Task) {
		c.waiting.add(parent.Task, msg.Task.ID)
	}
}

// answerInTask sends out, the agent's answer to the update of a subtask
// routed back to the conversation of task parent (mt), as an update of
// parent: its final one (completed, or the state a meta.Reply or a
// Failure sets) once no other subtask is waited for, else progress
// (working). It reports false when out is no such answer.
func (c *Channel) answerInTask(ctx context.Context, out bus.OutboundMessage, mt *meta.Meta, parts []envelope.Part) (bool, error) {
	if mt == nil || !mt.Routed() || mt.Tree == nil || mt.Type != envelope.TypeTaskUpdate || mt.Task == nil {
		return false, nil
	}
	parent := mt.Tree.Task
	t, ok := c.active.Get(parent)
	if !ok || t.Meta.From != out.ChatID {
		return false, nil
	}
	if mt.Task.State.Terminal() {
		c.waiting.done(parent, mt.Task.ID)
	}
	reply := replyOf(out)
	state := reply.State
	switch {
	case state.Terminal():
	case c.awaitsSubtasks(parent):
		state = envelope.StateWorking
	default:
		state = envelope.StateCompleted
	}
	_, err := c.FinishTask(ctx, parent, state, out.Content, reply.Reason, parts)
	return true, err
}

// failParent ends the task this agent delegated rec's task from when that
// subtask was refused because its task tree went round in a cycle, grew
// too deep or looped (meta.IsCycleRefusal), or failed because its
// budget, which was what was left of the parent's, is spent
// (envelope.BudgetExhausted): the parent fails with the same reason, and
// so on up the tree, until the update reaches the conversation the tree
// began in and the user reads why. It reports whether it failed the
// parent.
func (c *Channel) failParent(ctx context.Context, rec ledger.Record, update *envelope.Task) bool {
	if update.State != envelope.StateRejected && update.State != envelope.StateFailed {
		return false
	}
	cycle := meta.IsCycleRefusal(update.Reason)
	if !cycle && !isBudgetExhausted(update.Reason) || rec.ParentTask == "" || !c.active.Has(rec.ParentTask) {
		return false
	}
	why := "task fails: its subtask ran out of budget"
	if cycle {
		why = "task fails: its subtask was refused as a cycle"
	}
	c.Logger().Warn(why, "task", rec.ParentTask, "subtask", rec.TaskID, "reason", update.Reason)
	if _, err := c.FinishTask(ctx, rec.ParentTask, envelope.StateFailed, "", update.Reason, nil); err != nil {
		c.Logger().Warn("fail the parent task", "task", rec.ParentTask, "err", err)
		return false
	}
	return true
}

// TaskCounts says how many tasks a channel has in hand.
type TaskCounts struct {
	// Working is how many tasks the agent accepted and has not finished.
	Working int
	// Delegated counts the tasks the agent delegated that have not ended,
	// by the last state their assignee reported (pending until it
	// answers).
	Delegated map[envelope.TaskState]int
}

// Tasks returns the tasks the channel has in hand now; zero before Start.
func (c *Channel) Tasks() TaskCounts {
	out := TaskCounts{Working: c.active.Len(), Delegated: map[envelope.TaskState]int{}}
	c.mu.Lock()
	sent := c.sent
	c.mu.Unlock()
	if sent == nil {
		return out
	}
	for _, t := range sent.List() {
		state := t.State
		if state == "" {
			state = envelope.StatePending
		}
		out.Delegated[state]++
	}
	return out
}
