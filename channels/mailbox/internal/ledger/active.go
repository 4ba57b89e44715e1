package ledger

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
)

// Accepted is a task this agent accepted and works on. Its request is
// acknowledged only when the task ends, so a crash mid-task brings it
// back.
type Accepted struct {
	Meta     meta.Meta
	Delivery *store.Delivery
	timer    clock.Timer
}

// Active is the set of tasks this agent works on, by task id. It is safe
// for concurrent use.
type Active struct {
	clk   clock.Clock
	mu    sync.Mutex
	tasks map[string]*Accepted
}

// NewActive returns an empty set whose deadlines run on clk.
func NewActive(clk clock.Clock) *Active {
	return &Active{clk: clock.Or(clk), tasks: map[string]*Accepted{}}
}

// Has reports whether task id is active.
func (a *Active) Has(id string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.tasks[id]
	return ok
}

// Len returns how many tasks are active.
func (a *Active) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.tasks)
}

// Add makes task id active until deadline, when expire is called with its
// id (unless the task was taken out before).
func (a *Active) Add(id string, m meta.Meta, d *store.Delivery, deadline time.Time, expire func(id string)) {
	t := &Accepted{Meta: m, Delivery: d}
	a.mu.Lock()
	defer a.mu.Unlock()
	if old, ok := a.tasks[id]; ok {
		old.timer.Stop()
	}
	a.tasks[id] = t
	t.timer = a.clk.AfterFunc(deadline.Sub(a.clk.Now()), func() { expire(id) })
}

// Get returns task id while it is active.
func (a *Active) Get(id string) (*Accepted, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.tasks[id]
	return t, ok
}

// Take ends task id and returns it, if it is active and (when from is not
// empty) was sent by agent from: only the delegator may end a task from
// outside.
func (a *Active) Take(id, from string) (*Accepted, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.tasks[id]
	if !ok || from != "" && t.Meta.From != from {
		return nil, false
	}
	t.timer.Stop()
	delete(a.tasks, id)
	return t, true
}

// IDs returns the active task ids, sorted.
func (a *Active) IDs() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	ids := make([]string, 0, len(a.tasks))
	for id := range a.tasks {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// All returns the active tasks of taskID only, unless it is empty.
func (a *Active) All(taskID string) []*Accepted {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []*Accepted
	for id, t := range a.tasks {
		if taskID == "" || id == taskID {
			out = append(out, t)
		}
	}
	return out
}

// Clear stops every deadline and forgets every task (their requests stay
// claimed and come back on the next start).
func (a *Active) Clear() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, t := range a.tasks {
		t.timer.Stop()
	}
	a.tasks = map[string]*Accepted{}
}

// Sweeper is an inbox that archives a task's messages: a *store.Inbox.
type Sweeper interface {
	SweepTask(ctx context.Context, taskID string) (int, error)
}

// Sweep moves the handled messages of a task that ended out of the way of
// active routing, into the task's archive, when the inbox can. A failure
// is logged: the messages stay where they are.
func Sweep(ctx context.Context, in Sweeper, taskID string, log *slog.Logger) {
	if taskID == "" {
		return
	}
	n, err := in.SweepTask(context.WithoutCancel(ctx), taskID)
	if errors.Is(err, store.ErrTurnedOff) || errors.Is(err, store.ErrNotSupported) {
		return // the store keeps no archive: nothing to move
	}
	if err != nil {
		log.Warn("task messages not archived", "task", taskID, "err", err)
		return
	}
	if n > 0 {
		log.Debug("task messages archived", "task", taskID, "messages", n)
	}
}
