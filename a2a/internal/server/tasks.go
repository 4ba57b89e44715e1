package server

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv/taskstore"

	"github.com/switchboard-dev/switchboard/a2a/internal/convert"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// keyPrefix starts the key of every A2A task's record on the gateway's
// shelf of the mailbox store.
const keyPrefix = "a2a-task-"

// MailboxPrefix starts the id of the mailbox task that does an A2A task:
// "a2a-" and the A2A task's id. The gateway tells its own tasks' updates
// by it, also after a restart, without a lookup.
const MailboxPrefix = "a2a-"

// record is one A2A task as the gateway keeps it: the task the SDK stores
// and versions, the fronted agent it belongs to, and the gateway's own
// bookkeeping of the mailbox task that does it.
type record struct {
	Agent   string    `json:"agent"`
	Version int64     `json:"version"`
	Updated time.Time `json:"updated"`
	Task    *a2a.Task `json:"task"`
	Mailbox side      `json:"mailbox"`
}

// side is the gateway's bookkeeping of a task, beside the A2A task: it is
// changed without a new version (the SDK never sees it).
type side struct {
	// TaskID is the mailbox task's id (MailboxPrefix + the A2A task id).
	TaskID string `json:"task_id"`
	// Original is the id of the A2A message that created the task: an
	// execution started with it resumes the task.
	Original string `json:"original"`
	// MessageID is the mailbox task message, once sent.
	MessageID string `json:"message_id,omitempty"`
	// Waiting is what the task waits for while it is input-required.
	Waiting *waiting `json:"waiting,omitempty"`
}

// waiting is what an input-required task waits for: a person's approval
// of a step of its worker, or the answer to its worker's question.
type waiting struct {
	Kind string `json:"kind"` // waitApproval or waitQuestion
	// ID is the approval's id, or the question's message id.
	ID string `json:"id"`
	// From is the agent that asked.
	From string `json:"from,omitempty"`
}

// What an input-required task waits for.
const (
	waitApproval = "approval"
	waitQuestion = "question"
)

// tasks are the gateway's A2A tasks, every fronted agent's, kept as state
// records of the gateway's mailbox identity (one per task) and in memory.
// Only the process that holds the gateway's inbox writes them (a second
// gateway with the same id cannot start), so memory is the truth once
// loaded and each write goes through to the store.
type tasks struct {
	st    *store.Store
	shelf string // the gateway's agent id
	keep  int    // ended tasks kept (the oldest beyond are deleted)
	log   *slog.Logger
	now   func() time.Time

	mu      sync.Mutex
	recs    map[a2a.TaskID][]byte // the records as stored
	opened  map[a2a.TaskID]bool   // the tasks that have not ended
	created map[a2a.TaskID]chan struct{}
	// saved is told of each update that is stored, with its event.
	saved func(a2a.Event)
}

// loadTasks reads every task record of the gateway. A record that does
// not decode (edited by hand) is skipped with a warning, and left where it
// is for a person to look at.
func loadTasks(ctx context.Context, st *store.Store, shelf string, keep int, log *slog.Logger, now func() time.Time) (*tasks, error) {
	t := &tasks{st: st, shelf: shelf, keep: keep, log: log, now: now,
		recs: map[a2a.TaskID][]byte{}, opened: map[a2a.TaskID]bool{}, created: map[a2a.TaskID]chan struct{}{}}
	keys, err := st.ListState(ctx, shelf, keyPrefix)
	if err != nil {
		return nil, fmt.Errorf("list a2a tasks: %w", err)
	}
	for _, k := range keys {
		data, err := st.LoadState(ctx, shelf, k)
		if err != nil {
			return nil, fmt.Errorf("load a2a task: %w", err)
		}
		var r record
		if err := json.Unmarshal(data, &r); err != nil || r.Task == nil || keyOf(r.Task.ID) != k {
			log.Warn("a2a task record does not decode; skipped", "key", k, "err", err)
			continue
		}
		t.recs[r.Task.ID] = data
		if !r.Task.Status.State.Terminal() {
			t.opened[r.Task.ID] = true
		}
	}
	return t, nil
}

// keyOf is the record key of task id.
func keyOf(id a2a.TaskID) string { return keyPrefix + string(id) }

// validID reports whether id can name a task of the gateway.
//
// An A2A task id the gateway made looks like a UUID, lower case (a hex
// digit, then up to 54 hex digits and dashes): safe in a record key. Any
// other id names no task. (No regexp: the program would make it at start.)
func validID(id a2a.TaskID) bool {
	if len(id) == 0 || len(id) > 55 || id[0] == '-' {
		return false
	}
	for _, c := range []byte(id) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') && c != '-' {
			return false
		}
	}
	return true
}

// get returns a copy of the record of task id.
func (t *tasks) get(id a2a.TaskID) (record, bool) {
	t.mu.Lock()
	data, ok := t.recs[id]
	t.mu.Unlock()
	if !ok {
		return record{}, false
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return record{}, false // we wrote it: cannot happen
	}
	return r, true
}

// awaitCreate returns a channel closed once task id is stored.
func (t *tasks) awaitCreate(id a2a.TaskID) <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	c, ok := t.created[id]
	if !ok {
		c = make(chan struct{})
		t.created[id] = c
	}
	if _, stored := t.recs[id]; stored {
		select {
		case <-c:
		default:
			close(c)
		}
	}
	return c
}

// create stores a new task of agent.
func (t *tasks) create(ctx context.Context, agent string, task *a2a.Task) (taskstore.TaskVersion, error) {
	if !validID(task.ID) {
		return 0, fmt.Errorf("task id %q: %w", task.ID, a2a.ErrInvalidParams)
	}
	r := record{Agent: agent, Version: 1, Updated: t.now(), Task: task,
		Mailbox: side{TaskID: MailboxPrefix + string(task.ID)}}
	if len(task.History) > 0 && task.History[0] != nil {
		r.Mailbox.Original = task.History[0].ID
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.recs[task.ID]; ok {
		return 0, taskstore.ErrTaskAlreadyExists
	}
	if err := t.writeLocked(ctx, r); err != nil {
		return 0, err
	}
	c, ok := t.created[task.ID]
	if !ok {
		c = make(chan struct{})
		t.created[task.ID] = c
	}
	close(c)
	t.pruneLocked(ctx)
	t.log.Info("a2a task created", "task", task.ID, "agent", agent)
	return 1, nil
}

// update stores a new state of a task of agent, if its version is still
// prev.
func (t *tasks) update(ctx context.Context, agent string, req *taskstore.UpdateRequest) (taskstore.TaskVersion, error) {
	t.mu.Lock()
	r, ok := t.recordLocked(req.Task.ID, agent)
	if !ok {
		t.mu.Unlock()
		return 0, a2a.ErrTaskNotFound
	}
	if req.PrevVersion != taskstore.TaskVersionMissing && int64(req.PrevVersion) != r.Version {
		t.mu.Unlock()
		return 0, taskstore.ErrConcurrentModification
	}
	r.Version++
	was := r.Task.Status.State
	r.Task, r.Updated = req.Task, t.now()
	if r.Task.Status.State == a2a.TaskStateCanceled || r.Task.Status.State.Terminal() {
		r.Mailbox.Waiting = nil
	}
	err := t.writeLocked(ctx, r)
	saved := t.saved
	t.mu.Unlock()
	if err != nil {
		return 0, err
	}
	if st := r.Task.Status.State; st != was && (st.Terminal() || st == a2a.TaskStateInputRequired) {
		t.log.Info("a2a task "+map[bool]string{true: "ended", false: "waits for input"}[st.Terminal()],
			"task", r.Task.ID, "agent", agent, "state", convert.Short(st))
	}
	if saved != nil && req.Event != nil {
		saved(req.Event)
	}
	return taskstore.TaskVersion(r.Version), nil
}

// setSide changes the bookkeeping of task id.
func (t *tasks) setSide(ctx context.Context, id a2a.TaskID, change func(*side)) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.recordLocked(id, "")
	if !ok {
		return a2a.ErrTaskNotFound
	}
	change(&r.Mailbox)
	return t.writeLocked(ctx, r)
}

// recordLocked decodes the record of id, of agent unless agent is "".
func (t *tasks) recordLocked(id a2a.TaskID, agent string) (record, bool) {
	data, ok := t.recs[id]
	if !ok {
		return record{}, false
	}
	var r record
	if json.Unmarshal(data, &r) != nil || agent != "" && r.Agent != agent {
		return record{}, false
	}
	return r, true
}

// writeLocked stores r, in memory and in the store.
func (t *tasks) writeLocked(ctx context.Context, r record) error {
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode a2a task %s: %w", r.Task.ID, err)
	}
	if err := t.st.SaveState(ctx, t.shelf, keyOf(r.Task.ID), data); err != nil {
		return fmt.Errorf("store a2a task %s: %w", r.Task.ID, err)
	}
	t.recs[r.Task.ID] = data
	if r.Task.Status.State.Terminal() {
		delete(t.opened, r.Task.ID)
	} else {
		t.opened[r.Task.ID] = true
	}
	return nil
}

// pruneLocked deletes the oldest ended tasks beyond t.keep.
func (t *tasks) pruneLocked(ctx context.Context) {
	if t.keep <= 0 || len(t.recs) <= t.keep {
		return
	}
	type ended struct {
		id      a2a.TaskID
		updated time.Time
	}
	var old []ended
	for id, data := range t.recs {
		var r record
		if json.Unmarshal(data, &r) == nil && r.Task.Status.State.Terminal() {
			old = append(old, ended{id, r.Updated})
		}
	}
	slices.SortFunc(old, func(a, b ended) int { return a.updated.Compare(b.updated) })
	for _, e := range old[:max(0, min(len(old), len(t.recs)-t.keep))] {
		if err := t.st.DeleteState(ctx, t.shelf, keyOf(e.id)); err != nil {
			t.log.Warn("old a2a task not deleted", "task", e.id, "err", err)
			continue
		}
		delete(t.recs, e.id)
		delete(t.created, e.id)
	}
}

// open returns the tasks that have not ended, oldest first.
func (t *tasks) open() []record {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []record
	for id := range t.opened {
		var r record
		if json.Unmarshal(t.recs[id], &r) == nil && !r.Task.Status.State.Terminal() {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b record) int { return a.Updated.Compare(b.Updated) })
	return out
}

// all returns every task of agent.
func (t *tasks) all(agent string) []record {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]record, 0, len(t.recs))
	for _, data := range t.recs {
		var r record
		if json.Unmarshal(data, &r) == nil && r.Agent == agent {
			out = append(out, r)
		}
	}
	return out
}
