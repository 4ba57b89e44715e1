package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// UnsentKey is the StateStore key of the answers an agent composed and
// could not deliver yet.
const UnsentKey = "unsent"

// Unsent is the book of answers this agent composed and the store did not
// take (a full disk, a server down): each is delivered again as it is,
// under its own id (a second delivery of the same message is harmless),
// until the store takes it. It is persisted, so that an answer owed
// outlives a restart.
type Unsent struct {
	mu      sync.Mutex
	st      store.StateStore
	agent   string
	list    []*envelope.Message // oldest first
	saved   bool                // the persisted record holds list
	changed chan struct{}       // poked when an answer is added
}

// LoadUnsent reads what agent left unsent from st.
func LoadUnsent(ctx context.Context, st store.StateStore, agent string) (*Unsent, error) {
	u := &Unsent{st: st, agent: agent, saved: true, changed: make(chan struct{}, 1)}
	data, err := st.LoadState(ctx, agent, UnsentKey)
	if err != nil {
		return nil, fmt.Errorf("load unsent answers of %q: %w", agent, err)
	}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &u.list); err != nil {
			return nil, fmt.Errorf("load unsent answers of %q: %w: %w", agent, store.ErrCorruptState, err)
		}
	}
	return u, nil
}

// Add records m, an answer the store did not take, and saves the book.
// m stays in the book (retried while the process lives) whether or not
// the save succeeds; the error says that it would not outlive a restart.
func (u *Unsent) Add(ctx context.Context, m *envelope.Message) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.list = append(u.list, m)
	poke(u.changed)
	return u.saveLocked(ctx)
}

// Remove drops the answer with id msgID once the store took it, and saves
// the book.
func (u *Unsent) Remove(ctx context.Context, msgID string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.list = slices.DeleteFunc(u.list, func(m *envelope.Message) bool { return m.ID == msgID })
	return u.saveLocked(ctx)
}

// List returns the answers not sent yet, oldest first.
func (u *Unsent) List() []*envelope.Message {
	u.mu.Lock()
	defer u.mu.Unlock()
	return slices.Clone(u.list)
}

// Answering returns the unsent answer to message id (its reply_to), if
// any: a request or a task whose answer waits to go out.
func (u *Unsent) Answering(id string) (*envelope.Message, bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, m := range u.list {
		if m.ReplyTo == id {
			return m, true
		}
	}
	return nil, false
}

// Len is how many answers are not sent yet; kept reports whether the
// store holds them all (false when the last save failed).
func (u *Unsent) Len() (n int, kept bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.list), u.saved
}

// Changed is poked when an answer is added.
func (u *Unsent) Changed() <-chan struct{} { return u.changed }

func (u *Unsent) saveLocked(ctx context.Context) error {
	data, err := json.Marshal(u.list)
	if err == nil {
		err = u.st.SaveState(context.WithoutCancel(ctx), u.agent, UnsentKey, data)
	}
	u.saved = err == nil
	if err != nil {
		return fmt.Errorf("record unsent answers: %w", err)
	}
	return nil
}
