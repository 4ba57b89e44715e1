package mailbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// repliesStateKey is the StateStore key of the requests an agent sent
// and still waits on.
const repliesStateKey = "awaited-replies"

// Errors of replies owed.
var (
	// ErrReplyOwed refuses to archive a request that was not answered.
	ErrReplyOwed = errors.New("a reply is owed")
	// ErrNotHeld is returned by Archive for a message this agent does not
	// hold: never received here, or archived already.
	ErrNotHeld = errors.New("message not held")
)

// PendingReply is a request (a message that expects a reply) that has
// not been answered yet.
type PendingReply struct {
	MessageID string         `json:"message_id"`
	From      string         `json:"from"` // who asked
	To        string         `json:"to"`   // who owes the reply
	Type      envelope.Type  `json:"type"`
	ThreadID  string         `json:"thread_id,omitempty"`
	TaskID    string         `json:"task_id,omitempty"`
	Subject   string         `json:"subject,omitempty"`
	SentAt    envelope.Time  `json:"sent_at"`
	Due       *envelope.Time `json:"due,omitempty"`
	// Callback is the conversation the request was sent from, if any: an
	// overdue notice and the reply are routed there.
	Callback *envelope.Callback `json:"callback,omitempty"`
	// Notified is set once the asker was told the reply is overdue.
	Notified bool `json:"notified,omitempty"`
}

func pendingFromMessage(m *envelope.Message) PendingReply {
	return PendingReply{MessageID: m.ID, From: m.From, To: m.To, Type: m.Type, ThreadID: m.ThreadID,
		TaskID: m.TaskOf(), Subject: m.Subject, SentAt: m.Timestamp, Due: m.ReplyBy}
}

// Pending is what one agent owes and waits for.
type Pending struct {
	// Owed are the requests this agent received and has not answered.
	Owed []PendingReply `json:"owed"`
	// Awaited are the requests this agent sent that were not answered.
	Awaited []PendingReply `json:"awaited"`
}

// heldRequest is a received request whose delivery is held (claimed,
// not acknowledged) until it is answered.
type heldRequest struct {
	reply    PendingReply
	delivery *store.Delivery
}

// replyLedger tracks replies owed both ways. The requests this agent
// waits on are persisted; those it owes are the held deliveries, which
// the store keeps claimed across a restart.
type replyLedger struct {
	mu      sync.Mutex
	st      store.StateStore
	agent   string
	awaited map[string]PendingReply // by request id
	held    map[string]*heldRequest // by request id
	changed chan struct{}           // poked when due times may have changed
}

func loadReplyLedger(ctx context.Context, st store.StateStore, agent string) (*replyLedger, error) {
	l := &replyLedger{st: st, agent: agent, awaited: map[string]PendingReply{},
		held: map[string]*heldRequest{}, changed: make(chan struct{}, 1)}
	data, err := st.LoadState(ctx, agent, repliesStateKey)
	if err != nil {
		return nil, fmt.Errorf("load awaited replies of %q: %w", agent, err)
	}
	if len(data) > 0 {
		var list []PendingReply
		if err := json.Unmarshal(data, &list); err != nil {
			return nil, fmt.Errorf("load awaited replies of %q: corrupt record: %w", agent, err)
		}
		for _, p := range list {
			l.awaited[p.MessageID] = p
		}
	}
	return l, nil
}

// await records a request before it is sent.
func (l *replyLedger) await(ctx context.Context, p PendingReply) error {
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

// answered drops the awaited request id if `from` owed its reply, and
// returns it.
func (l *replyLedger) answered(ctx context.Context, id, from string) (PendingReply, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, ok := l.awaited[id]
	if !ok || p.To != from {
		return PendingReply{}, false
	}
	delete(l.awaited, id)
	_ = l.saveLocked(ctx) // a stale record only causes a late notice
	l.poke()
	return p, true
}

// forget drops an awaited request (its send failed).
func (l *replyLedger) forget(ctx context.Context, id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.awaited, id)
	_ = l.saveLocked(ctx)
}

// markNotified records that the asker was told request id is overdue.
func (l *replyLedger) markNotified(ctx context.Context, id string) error {
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

// nextDue returns the awaited request due first that was not notified.
func (l *replyLedger) nextDue() (PendingReply, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var best PendingReply
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

// hold keeps a received request's delivery until it is answered.
func (l *replyLedger) hold(d *store.Delivery) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.held[d.Message.ID] = &heldRequest{reply: pendingFromMessage(d.Message), delivery: d}
}

// release returns and forgets the held request id if it came from `to`
// (the agent a reply goes to).
func (l *replyLedger) release(id, to string) (*heldRequest, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.held[id]
	if !ok || h.reply.From != to {
		return nil, false
	}
	delete(l.held, id)
	return h, true
}

// heldRequest returns the held request id.
func (l *replyLedger) heldRequest(id string) (*heldRequest, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.held[id]
	return h, ok
}

// snapshot returns what is owed and awaited, of task taskID only when it
// is not empty, oldest first.
func (l *replyLedger) snapshot(taskID string) Pending {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out Pending
	for _, h := range l.held {
		if taskID == "" || h.reply.TaskID == taskID {
			out.Owed = append(out.Owed, h.reply)
		}
	}
	for _, p := range l.awaited {
		if taskID == "" || p.TaskID == taskID {
			out.Awaited = append(out.Awaited, p)
		}
	}
	bySent := func(a, b PendingReply) int { return a.SentAt.Compare(b.SentAt.Time) }
	slices.SortFunc(out.Owed, bySent)
	slices.SortFunc(out.Awaited, bySent)
	return out
}

func (l *replyLedger) poke() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

func (l *replyLedger) saveLocked(ctx context.Context) error {
	list := make([]PendingReply, 0, len(l.awaited))
	for _, p := range l.awaited {
		list = append(list, p)
	}
	slices.SortFunc(list, func(a, b PendingReply) int { return a.SentAt.Compare(b.SentAt.Time) })
	data, err := json.Marshal(list)
	if err != nil {
		return err
	}
	if err := l.st.SaveState(ctx, l.agent, repliesStateKey, data); err != nil {
		return fmt.Errorf("record awaited reply: %w", err)
	}
	return nil
}
