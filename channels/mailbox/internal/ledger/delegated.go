package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// DelegatedKey is the StateStore key of the delegated-task records.
const DelegatedKey = "sent-tasks"

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
	// Told are the notices of the task already told to the conversation
	// it began in (accepted, working: see NoticeKey), each with the id of
	// the update that told it.
	Told map[string]string `json:"told,omitempty"`
	// Reoffer holds what it takes to send the task again to another
	// worker (see the channel's delegated.go).
	Reoffer
}

// Reoffer is what a delegated task's record keeps so that the task can
// be sent again when its worker does not take it up or is lost.
type Reoffer struct {
	// Via is the group target the worker was picked from ("any:NAME",
	// "cap:NAME"); empty when the task was sent to one agent by name.
	Via string `json:"via,omitempty"`
	// Parts and Budget are the task's content and budget, kept only when
	// Via is set.
	Parts  []envelope.Part  `json:"parts,omitempty"`
	Budget *envelope.Budget `json:"budget,omitempty"`
	// Tried are the workers it was offered to before To.
	Tried []string `json:"tried,omitempty"`
	// Said is what each worker of Tried said of it, by agent ("rejected:
	// unauthorized", "did not accept it in time"), for an escalation's
	// account of who tried.
	Said map[string]string `json:"said,omitempty"`
	// Noticed is set once the delegator was told that a task sent to one
	// agent waits unaccepted.
	Noticed bool `json:"noticed,omitempty"`
}

// Group returns the kind ("any" or "cap") and the capability or role of
// Via, and false when the task cannot go to another worker.
func (r Reoffer) Group() (kind, name string, ok bool) {
	kind, name, ok = strings.Cut(r.Via, ":")
	if !ok || name == "" || kind != "any" && kind != "cap" {
		return "", "", false
	}
	return kind, name, true
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
	data, err := st.LoadState(ctx, agent, DelegatedKey)
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
	poke(s.sent)
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

func (s *Delegated) poke() { poke(s.changed) }

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
	if err := s.st.SaveState(ctx, s.agent, DelegatedKey, data); err != nil {
		return fmt.Errorf("record delegated task: %w", err)
	}
	return nil
}

// TaskOverdueNotice is what the user is told when a delegated task's
// deadline passes without a result.
func TaskOverdueNotice(t Record) string {
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

// Sent is poked whenever a task is recorded (sent or sent again).
func (s *Delegated) Sent() <-chan struct{} { return s.sent }

// NextUnaccepted returns the task sent longest ago that its worker has
// not accepted yet (state pending), and whose delegator was not told
// about it already.
func (s *Delegated) NextUnaccepted() (Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var best Record
	found := false
	for _, t := range s.byTask {
		if t.State != envelope.StatePending || t.Noticed {
			continue
		}
		if !found || t.SentAt.Before(best.SentAt.Time) {
			best, found = t, true
		}
	}
	return best, found
}

// Working returns the tasks their worker accepted and has not finished.
func (s *Delegated) Working() []Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Record
	for _, t := range s.byTask {
		if t.State == envelope.StateAccepted || t.State == envelope.StateWorking {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b Record) int { return a.SentAt.Compare(b.SentAt.Time) })
	return out
}

// Update changes the record of task taskID with fn and saves it; a task
// with no record is left alone. The change holds in this process even
// when it cannot be saved (the error says so; the next save writes it),
// so that a watcher acting on it does not act again.
func (s *Delegated) Update(ctx context.Context, taskID string, fn func(*Record)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.byTask[taskID]
	if !ok {
		return nil
	}
	fn(&t)
	s.byTask[taskID] = t
	return s.saveLocked(ctx)
}

// NoticeKey names the notice an update m of a task tells: its state and a
// digest of its text. Two updates with one key tell the same thing (a
// worker that restarts accepts the task again, and may repeat its
// progress).
func NoticeKey(m *envelope.Message) string {
	sum := sha256.Sum256([]byte(m.Text()))
	state := envelope.TaskState("")
	if m.Task != nil {
		state = m.Task.State
	}
	return string(state) + ":" + hex.EncodeToString(sum[:8])
}

// Tell records that update id tells the notice key of task taskID, and
// reports whether it is to be told: not when another update told it
// before (the same update, handed over again, is). A task without a
// record is told. The record is saved; an error to save it is returned
// with the answer, the record kept in memory (saved with the next change).
func (s *Delegated) Tell(ctx context.Context, taskID, key, id string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.byTask[taskID]
	if !ok {
		return true, nil
	}
	if by, told := t.Told[key]; told {
		return by == id, nil
	}
	t.Told = maps.Clone(t.Told)
	if t.Told == nil {
		t.Told = map[string]string{}
	}
	t.Told[key] = id
	s.byTask[taskID] = t
	return true, s.saveLocked(ctx)
}

// AcceptDue is when a task sent at sent must be accepted by.
func AcceptDue(t Record, timeout time.Duration) time.Time { return t.SentAt.Add(timeout) }
