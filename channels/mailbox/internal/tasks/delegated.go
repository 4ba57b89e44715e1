package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/internal/due"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// StateKey is the StateStore key of the delegated-task records.
const StateKey = "sent-tasks"

// Record is what this agent remembers of a task it delegated: whom it
// went to and where its results must be routed.
type Record struct {
	TaskID    string             `json:"task_id"`
	MessageID string             `json:"message_id"`
	To        string             `json:"to"`
	Callback  *envelope.Callback `json:"callback,omitempty"`
	Deadline  *envelope.Time     `json:"deadline,omitempty"`
	State     envelope.TaskState `json:"state"`
	SentAt    envelope.Time      `json:"sent_at"`
	ThreadID  string             `json:"thread_id,omitempty"`
	// ParentTask is the task this agent worked on when it delegated this
	// one (its subtask), and ParentPath that task's task_path: the tree
	// the task's updates are routed back into (meta.Tree).
	ParentTask string   `json:"parent_task,omitempty"`
	ParentPath []string `json:"parent_path,omitempty"`
	// Reoffer holds what it takes to send the task again to another
	// worker (see lost.go).
	Reoffer
}

// RecordOf returns the record of task message m, sent from the
// conversation cb (may be nil) while working in task tree tree (nil: none).
func RecordOf(m *envelope.Message, cb *envelope.Callback, tree *meta.Tree) Record {
	r := Record{TaskID: m.Task.ID, MessageID: m.ID, To: m.To, Callback: cb,
		Deadline: m.Task.Deadline, State: m.Task.State, SentAt: m.Timestamp, ThreadID: m.ThreadID}
	if tree != nil {
		r.ParentTask, r.ParentPath = tree.Task, tree.Path
	}
	return r
}

// Delegated is the persisted set of open delegated tasks. Records are
// removed when their task ends, so the set stays small.
type Delegated struct {
	mu      sync.Mutex
	st      store.StateStore
	agent   string
	byTask  map[string]Record
	changed chan struct{} // poked when deadlines may have changed
	sent    chan struct{} // poked when a task is sent (see Sent)
}

// LoadDelegated reads agent's records from st.
func LoadDelegated(ctx context.Context, st store.StateStore, agent string) (*Delegated, error) {
	s := &Delegated{st: st, agent: agent, byTask: map[string]Record{}, changed: make(chan struct{}, 1),
		sent: make(chan struct{}, 1)}
	data, err := st.LoadState(ctx, agent, StateKey)
	if err != nil {
		return nil, fmt.Errorf("load delegated tasks of %q: %w", agent, err)
	}
	if len(data) > 0 {
		var list []Record
		if err := json.Unmarshal(data, &list); err != nil {
			return nil, fmt.Errorf("load delegated tasks of %q: %w: %w", agent, store.ErrCorruptState, err)
		}
		for _, t := range list {
			s.byTask[t.TaskID] = t
		}
	}
	return s, nil
}

// Add records a task before it is sent.
func (s *Delegated) Add(ctx context.Context, t Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byTask[t.TaskID] = t
	if err := s.saveLocked(ctx); err != nil {
		delete(s.byTask, t.TaskID)
		return err
	}
	s.poke()
	due.Poke(s.sent)
	return nil
}

// Lookup returns the record of a task this agent sent to agent `from`.
func (s *Delegated) Lookup(taskID, from string) (Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.byTask[taskID]
	if !ok || t.To != from {
		return Record{}, false
	}
	return t, true
}

// LookupMessage returns the record of the task whose request had id msgID
// and went to agent `from`.
func (s *Delegated) LookupMessage(msgID, from string) (Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.byTask {
		if t.MessageID == msgID && t.To == from {
			return t, true
		}
	}
	return Record{}, false
}

// SetState records a task's new state; terminal states drop the record.
func (s *Delegated) SetState(ctx context.Context, taskID string, state envelope.TaskState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.byTask[taskID]
	if !ok {
		return nil
	}
	if state.Terminal() {
		delete(s.byTask, taskID)
	} else {
		t.State = state
		s.byTask[taskID] = t
	}
	return s.saveLocked(ctx)
}

// Remove forgets a task (its send failed); a failure to save is ignored:
// a stale record only routes a late update.
func (s *Delegated) Remove(ctx context.Context, taskID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byTask, taskID)
	_ = s.saveLocked(ctx)
}

// NextDeadline returns the earliest deadline among open tasks.
func (s *Delegated) NextDeadline() (Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var best Record
	found := false
	for _, t := range s.byTask {
		if t.Deadline == nil {
			continue
		}
		if !found || t.Deadline.Before(best.Deadline.Time) {
			best, found = t, true
		}
	}
	return best, found
}

func (s *Delegated) poke() { due.Poke(s.changed) }

// Changed is poked whenever a deadline may have changed.
func (s *Delegated) Changed() <-chan struct{} { return s.changed }

func (s *Delegated) saveLocked(ctx context.Context) error {
	list := make([]Record, 0, len(s.byTask))
	for _, t := range s.byTask {
		list = append(list, t)
	}
	data, err := json.Marshal(list)
	if err != nil {
		return err
	}
	if err := s.st.SaveState(ctx, s.agent, StateKey, data); err != nil {
		return fmt.Errorf("record delegated task: %w", err)
	}
	return nil
}

// OverdueNotice is what the user is told when a delegated task's deadline
// passes without a result.
func OverdueNotice(t Record) string {
	return fmt.Sprintf("task %s delegated to %s got no result by its deadline (%s); it is treated as failed",
		t.TaskID, t.To, t.Deadline.Format(time.RFC3339))
}

// List returns the open delegated tasks.
func (s *Delegated) List() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Record, 0, len(s.byTask))
	for _, t := range s.byTask {
		out = append(out, t)
	}
	return out
}

// Subtasks returns the ids of the open tasks delegated while working on
// task parent.
func (s *Delegated) Subtasks(parent string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, t := range s.byTask {
		if t.ParentTask == parent && parent != "" {
			out = append(out, t.TaskID)
		}
	}
	return out
}
