package console

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// TaskNode is one delegated task and the tasks its worker delegated while
// working on it.
type TaskNode struct {
	ID       string             `json:"id"`
	From     string             `json:"from"` // the delegator
	To       string             `json:"to"`   // the worker
	Text     string             `json:"text"`
	Thread   string             `json:"thread"`
	State    envelope.TaskState `json:"state"`
	Reason   string             `json:"reason,omitempty"`
	Created  time.Time          `json:"created"`
	Updated  time.Time          `json:"updated"`
	Deadline *time.Time         `json:"deadline,omitempty"`
	Updates  []TaskUpdate       `json:"updates"`
	// Origin is the chat the task began in (the callback of its root).
	Origin *envelope.Callback `json:"origin,omitempty"`
	// Stuck says, for a task not ended, what it waits for.
	Stuck    string      `json:"stuck,omitempty"`
	Children []*TaskNode `json:"children"`

	trace []string
	box   store.Box
}

// TaskUpdate is one state change of a task.
type TaskUpdate struct {
	State envelope.TaskState `json:"state"`
	Time  time.Time          `json:"time"`
	From  string             `json:"from"`
}

// taskTrees builds the delegation trees, newest root first. A task is a
// subtask of task T when its sender is T's worker, it was sent after T,
// and its trace is T's trace plus T's worker (it was delegated while
// handling T).
func taskTrees(all []store.Stored, now time.Time) []*TaskNode {
	nodes := map[string]*TaskNode{}
	var order []*TaskNode
	for _, s := range all {
		m := s.Message
		if m.Type != envelope.TypeTask || m.Task == nil {
			continue
		}
		if n, dup := nodes[m.Task.ID]; dup {
			if m.Timestamp.Before(n.Created) { // the first copy names the task
				n.Created = m.Timestamp.Time
			}
			continue
		}
		n := &TaskNode{ID: m.Task.ID, From: m.From, To: m.To, Text: text(m), Thread: cmp.Or(m.ThreadID, m.ID),
			State: m.Task.State, Created: m.Timestamp.Time, Updated: m.Timestamp.Time, Origin: m.Callback,
			Updates:  []TaskUpdate{{State: m.Task.State, Time: m.Timestamp.Time, From: m.From}},
			Children: []*TaskNode{}, trace: m.Trace, box: s.Box}
		if m.Task.Deadline != nil {
			d := m.Task.Deadline.Time
			n.Deadline = &d
		}
		nodes[n.ID] = n
		order = append(order, n)
	}
	var updates []*envelope.Message
	for _, s := range all {
		if m := s.Message; m.Type == envelope.TypeTaskUpdate && m.Task != nil && nodes[m.Task.ID] != nil {
			updates = append(updates, m)
		}
	}
	slices.SortStableFunc(updates, func(a, b *envelope.Message) int { return a.Timestamp.Compare(b.Timestamp.Time) })
	for _, m := range updates {
		n := nodes[m.Task.ID]
		n.Updates = append(n.Updates, TaskUpdate{State: m.Task.State, Time: m.Timestamp.Time, From: m.From})
		if n.State.Terminal() && m.Task.State != envelope.StateCanceled {
			continue // a late update does not reopen an ended task
		}
		n.State, n.Updated = m.Task.State, m.Timestamp.Time
		if m.Task.Reason != "" {
			n.Reason = m.Task.Reason
		}
	}
	slices.SortStableFunc(order, func(a, b *TaskNode) int { return a.Created.Compare(b.Created) })
	roots := []*TaskNode{}
	byWorker := map[string][]*TaskNode{} // the tasks so far, by worker, in order
	for _, n := range order {
		var parent *TaskNode
		for _, p := range byWorker[n.From] {
			if !n.Created.Before(p.Created) && isChildTrace(p, n) {
				parent = p // the latest such task
			}
		}
		byWorker[n.To] = append(byWorker[n.To], n)
		if parent == nil {
			roots = append(roots, n)
			continue
		}
		parent.Children = append(parent.Children, n)
	}
	for _, r := range roots {
		inheritOrigin(r, r.Origin)
		stuck(r, now)
	}
	slices.Reverse(roots)
	return roots
}

// isChildTrace reports whether n's trace is p's trace plus p's worker.
func isChildTrace(p, n *TaskNode) bool {
	return len(n.trace) == len(p.trace)+1 && slices.Equal(n.trace[:len(p.trace)], p.trace) &&
		n.trace[len(p.trace)] == p.To
}

func inheritOrigin(n *TaskNode, origin *envelope.Callback) {
	if n.Origin == nil {
		n.Origin = origin
	}
	for _, c := range n.Children {
		inheritOrigin(c, n.Origin)
	}
}

// stuck fills Stuck for the tasks not ended: the deepest open subtask
// they wait on, or what their own worker has (not) done.
func stuck(n *TaskNode, now time.Time) string {
	var deepest string
	for _, c := range n.Children {
		if s := stuck(c, now); s != "" && deepest == "" {
			deepest = s
		}
	}
	if n.State.Terminal() {
		return ""
	}
	age := now.Sub(n.Updated).Round(time.Second)
	switch {
	case deepest != "":
		n.Stuck = deepest
	case n.box == store.BoxInbox && n.State == envelope.StatePending:
		n.Stuck = fmt.Sprintf("not taken by %s yet (%s)", n.To, age)
	default:
		n.Stuck = fmt.Sprintf("%s is %s (%s)", n.To, n.State, age)
	}
	if n.Deadline != nil && n.Deadline.Before(now) {
		n.Stuck += ", past its deadline"
	}
	return n.Stuck
}
