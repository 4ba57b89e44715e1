package remote

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// openKey is the state record of the tasks a participant sent and has
// not ended: a small map, at most its task capacity (and what a crash
// between ending a task and forgetting it leaves, which is dropped after
// staleAfter).
const openKey = "a2a-remote-tasks"

// staleAfter is how long an entry stays after its task was sent.
const staleAfter = 7 * 24 * time.Hour

// sent is what the participant knows of a task it sent to the A2A agent.
type sent struct {
	// RemoteID and ContextID are the A2A task's.
	RemoteID  string    `json:"remote_id"`
	ContextID string    `json:"context_id,omitempty"`
	Sent      time.Time `json:"sent"`
	// Question is the id of the mailbox question asked for the remote
	// task's input, while it waits for the answer.
	Question string `json:"question,omitempty"`
}

// openTasks is the record of a participant's sent tasks, by mailbox task
// id.
type openTasks struct {
	st    *store.Store
	agent string

	mu sync.Mutex
	m  map[string]sent
}

// loadOpen reads the record, dropping entries older than staleAfter.
func loadOpen(ctx context.Context, st *store.Store, agent string, now time.Time) (*openTasks, error) {
	o := &openTasks{st: st, agent: agent, m: map[string]sent{}}
	data, err := st.LoadState(ctx, agent, openKey)
	if err != nil {
		return nil, err
	}
	if data != nil {
		if err := json.Unmarshal(data, &o.m); err != nil {
			return nil, fmt.Errorf("state %s of %s: %w", openKey, agent, store.ErrCorruptState)
		}
	}
	for id, s := range o.m {
		if now.Sub(s.Sent) > staleAfter {
			delete(o.m, id)
		}
	}
	return o, nil
}

// get returns what was sent for mailbox task id.
func (o *openTasks) get(id string) (sent, bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s, ok := o.m[id]
	return s, ok
}

// set records s for mailbox task id.
func (o *openTasks) set(ctx context.Context, id string, s sent) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.m[id] = s
	return o.saveLocked(ctx)
}

// forget drops mailbox task id.
func (o *openTasks) forget(ctx context.Context, id string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if _, ok := o.m[id]; !ok {
		return nil
	}
	delete(o.m, id)
	return o.saveLocked(ctx)
}

func (o *openTasks) saveLocked(ctx context.Context) error {
	data, err := json.Marshal(o.m)
	if err != nil {
		return err
	}
	return o.st.SaveState(ctx, o.agent, openKey, data)
}
