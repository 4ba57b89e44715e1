package tasks

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

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

// AcceptDue is when a task sent at sent must be accepted by.
func AcceptDue(t Record, timeout time.Duration) time.Time { return t.SentAt.Add(timeout) }
