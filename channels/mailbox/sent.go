package mailbox

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// sentStateKey is the StateStore key of the delegated-task records.
const sentStateKey = "sent-tasks"

// sentTask is what this agent remembers of a task it delegated: whom it
// went to and where its results must be routed.
type sentTask struct {
	TaskID    string             `json:"task_id"`
	MessageID string             `json:"message_id"`
	To        string             `json:"to"`
	Callback  *envelope.Callback `json:"callback,omitempty"`
	Deadline  *envelope.Time     `json:"deadline,omitempty"`
	State     envelope.TaskState `json:"state"`
	SentAt    envelope.Time      `json:"sent_at"`
	ThreadID  string             `json:"thread_id,omitempty"`
}

func sentFromMessage(m *envelope.Message, cb *envelope.Callback) sentTask {
	return sentTask{TaskID: m.Task.ID, MessageID: m.ID, To: m.To, Callback: cb,
		Deadline: m.Task.Deadline, State: m.Task.State, SentAt: m.Timestamp, ThreadID: m.ThreadID}
}

// sentTasks is the persisted set of open delegated tasks. Records are
// removed when their task ends, so the set stays small.
type sentTasks struct {
	mu      sync.Mutex
	st      store.StateStore
	agent   string
	byTask  map[string]sentTask
	changed chan struct{} // poked when deadlines may have changed
}

func loadSentTasks(ctx context.Context, st store.StateStore, agent string) (*sentTasks, error) {
	s := &sentTasks{st: st, agent: agent, byTask: map[string]sentTask{}, changed: make(chan struct{}, 1)}
	data, err := st.LoadState(ctx, agent, sentStateKey)
	if err != nil {
		return nil, fmt.Errorf("load delegated tasks of %q: %w", agent, err)
	}
	if len(data) > 0 {
		var list []sentTask
		if err := json.Unmarshal(data, &list); err != nil {
			return nil, fmt.Errorf("load delegated tasks of %q: corrupt record: %w", agent, err)
		}
		for _, t := range list {
			s.byTask[t.TaskID] = t
		}
	}
	return s, nil
}

// add records a task before it is sent.
func (s *sentTasks) add(ctx context.Context, t sentTask) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byTask[t.TaskID] = t
	if err := s.saveLocked(ctx); err != nil {
		delete(s.byTask, t.TaskID)
		return err
	}
	s.poke()
	return nil
}

// lookup returns the record of a task this agent sent to agent `from`.
func (s *sentTasks) lookup(taskID, from string) (sentTask, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.byTask[taskID]
	if !ok || t.To != from {
		return sentTask{}, false
	}
	return t, true
}

// lookupMessage returns the record of the task whose request had id msgID
// and went to agent `from`.
func (s *sentTasks) lookupMessage(msgID, from string) (sentTask, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.byTask {
		if t.MessageID == msgID && t.To == from {
			return t, true
		}
	}
	return sentTask{}, false
}

// setState records a task's new state; terminal states drop the record.
func (s *sentTasks) setState(ctx context.Context, taskID string, state envelope.TaskState) error {
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

func (s *sentTasks) remove(ctx context.Context, taskID string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byTask, taskID)
	_ = s.saveLocked(ctx)
}

// nextDeadline returns the earliest deadline among open tasks.
func (s *sentTasks) nextDeadline() (sentTask, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var best sentTask
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

func (s *sentTasks) poke() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *sentTasks) saveLocked(ctx context.Context) error {
	list := make([]sentTask, 0, len(s.byTask))
	for _, t := range s.byTask {
		list = append(list, t)
	}
	data, err := json.Marshal(list)
	if err != nil {
		return err
	}
	if err := s.st.SaveState(ctx, s.agent, sentStateKey, data); err != nil {
		return fmt.Errorf("record delegated task: %w", err)
	}
	return nil
}

// overdueNotice is what the user is told when a delegated task's deadline
// passes without a result.
func overdueNotice(t sentTask) string {
	return fmt.Sprintf("task %s delegated to %s got no result by its deadline (%s); it is treated as failed",
		t.TaskID, t.To, t.Deadline.Format(time.RFC3339))
}

// list returns the open delegated tasks.
func (s *sentTasks) list() []sentTask {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]sentTask, 0, len(s.byTask))
	for _, t := range s.byTask {
		out = append(out, t)
	}
	return out
}
