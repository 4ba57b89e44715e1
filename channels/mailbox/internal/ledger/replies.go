package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// RepliesKey is the StateStore key of the requests an agent sent and
// still waits on.
const RepliesKey = "awaited-replies"

// Held is a received request whose delivery is held (claimed,
// not acknowledged) until it is answered.
type Held struct {
	Reply    view.PendingReply
	Delivery *store.Delivery
}

// Replies tracks replies owed both ways. The requests this agent
// waits on are persisted; those it owes are the held deliveries, which
// the store keeps claimed across a restart.
type Replies struct {
	mu      sync.Mutex
	st      store.StateStore
	agent   string
	awaited map[string]view.PendingReply // by request id
	held    map[string]*Held             // by request id
	changed chan struct{}                // poked when due times may have changed
}

// LoadReplies reads what agent waits on from st.
func LoadReplies(ctx context.Context, st store.StateStore, agent string) (*Replies, error) {
	l := &Replies{st: st, agent: agent, awaited: map[string]view.PendingReply{},
		held: map[string]*Held{}, changed: make(chan struct{}, 1)}
	data, err := st.LoadState(ctx, agent, RepliesKey)
	if err != nil {
		return nil, fmt.Errorf("load awaited replies of %q: %w", agent, err)
	}
	if len(data) > 0 {
		var list []view.PendingReply
		if err := json.Unmarshal(data, &list); err != nil {
			return nil, fmt.Errorf("load awaited replies of %q: %w: %w", agent, store.ErrCorruptState, err)
		}
		for _, p := range list {
			l.awaited[p.MessageID] = p
		}
	}
	return l, nil
}

// Await records a request before it is sent.
func (l *Replies) Await(ctx context.Context, p view.PendingReply) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.awaited[p.MessageID] = p
	if err := l.saveLocked(ctx); err != nil {
		delete(l.awaited, p.MessageID)
		return err
	}
	l.poke()
	return nil
}

// Answered drops the awaited request id if `from` owed its reply, and
// returns it.
func (l *Replies) Answered(ctx context.Context, id, from string) (view.PendingReply, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.awaited[id]
	if !ok || p.To != from {
		return view.PendingReply{}, false
	}
	delete(l.awaited, id)
	_ = l.saveLocked(ctx) // a stale record only causes a late notice
	l.poke()
	return p, true
}

// Forget drops an awaited request (its send failed).
func (l *Replies) Forget(ctx context.Context, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.awaited, id)
	_ = l.saveLocked(ctx)
}

// MarkNotified records that the asker was told request id is overdue.
func (l *Replies) MarkNotified(ctx context.Context, id string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.awaited[id]
	if !ok {
		return nil
	}
	p.Notified = true
	l.awaited[id] = p
	return l.saveLocked(ctx)
}

// NextDue returns the awaited request due first that was not notified.
func (l *Replies) NextDue() (view.PendingReply, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var best view.PendingReply
	found := false
	for _, p := range l.awaited {
		if p.Notified || p.Due == nil {
			continue
		}
		if !found || p.Due.Before(best.Due.Time) {
			best, found = p, true
		}
	}
	return best, found
}

// Hold keeps a received request's delivery until it is answered.
func (l *Replies) Hold(d *store.Delivery) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held[d.Message.ID] = &Held{Reply: view.PendingFromMessage(d.Message), Delivery: d}
}

// Release returns and forgets the held request id if it came from `to`
// (the agent a reply goes to).
func (l *Replies) Release(id, to string) (*Held, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.held[id]
	if !ok || h.Reply.From != to {
		return nil, false
	}
	delete(l.held, id)
	return h, true
}

// HeldRequest returns the held request id.
func (l *Replies) HeldRequest(id string) (*Held, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.held[id]
	return h, ok
}

// Snapshot returns what is owed and awaited, of task taskID only when it
// is not empty, oldest first.
func (l *Replies) Snapshot(taskID string) view.Pending {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out view.Pending
	for _, h := range l.held {
		if taskID == "" || h.Reply.TaskID == taskID {
			out.Owed = append(out.Owed, h.Reply)
		}
	}
	for _, p := range l.awaited {
		if taskID == "" || p.TaskID == taskID {
			out.Awaited = append(out.Awaited, p)
		}
	}
	bySent := func(a, b view.PendingReply) int { return a.SentAt.Compare(b.SentAt.Time) }
	slices.SortFunc(out.Owed, bySent)
	slices.SortFunc(out.Awaited, bySent)
	return out
}

func (l *Replies) poke() { poke(l.changed) }

// Changed is poked whenever a due time may have changed.
func (l *Replies) Changed() <-chan struct{} { return l.changed }

func (l *Replies) saveLocked(ctx context.Context) error {
	list := make([]view.PendingReply, 0, len(l.awaited))
	for _, p := range l.awaited {
		list = append(list, p)
	}
	slices.SortFunc(list, func(a, b view.PendingReply) int { return a.SentAt.Compare(b.SentAt.Time) })
	data, err := json.Marshal(list)
	if err != nil {
		return err
	}
	if err := l.st.SaveState(ctx, l.agent, RepliesKey, data); err != nil {
		return fmt.Errorf("record awaited reply: %w", err)
	}
	return nil
}

// ReplyOverdueNotice is what the waiting agent (or its user) is told when
// request p was not answered by its due time.
func ReplyOverdueNotice(p view.PendingReply) string {
	about := ""
	if p.Subject != "" {
		about = fmt.Sprintf(" about %s", p.Subject)
	}
	return fmt.Sprintf("%s has not replied to your request%s (message %s, sent %s) by %s; the request stays open",
		p.To, about, p.MessageID, p.SentAt.Format(time.RFC3339), p.Due.Format(time.RFC3339))
}
