package mailbox

import (
	"context"
	"sync"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/ledger"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// This file keeps a task open while the subtasks delegated from it run.
// An agent that delegates part of its task answers the task in the same
// turn ("I asked coder to ..."); that answer does not end the task while
// a subtask runs: it goes to the delegator as progress (working), and
// the task ends with the agent's answer to the result of its last
// subtask, routed back to the task's conversation. So the result, or the
// failure, of work at the bottom of a tree travels up to the
// conversation the tree began in, the task's budget counts what its
// subtasks spent, and a subtask that failed for a broken tree or a spent
// budget can fail its parent (cycle.go).

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
