package view

import (
	"context"
	"errors"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
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

// PendingFromMessage returns the PendingReply of request m.
func PendingFromMessage(m *envelope.Message) PendingReply {
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

// PendingFilter selects the pending replies FindPending returns. Zero

// ErrReplyOwed refuses to archive a request that was not answered.
var ErrReplyOwed = errors.New("a reply is owed")

// fields select everything.
type PendingFilter struct {
	// Agent keeps the requests that agent sent or must answer.
	Agent string
	// TaskID keeps the requests of one task.
	TaskID string
	// Now is when overdue is decided (default time.Now()).
	Now time.Time
	// ReplyTimeout is how long a request without reply_by (or a task
	// without a deadline) may wait before it is overdue; 0: never.
	ReplyTimeout time.Duration
	// OverdueOnly keeps the overdue requests only.
	OverdueOnly bool
}

// StoredPending is a request found in a store with no reply stored.
type StoredPending struct {
	PendingReply
	// Where is where the request is now: the inbox of the agent that owes
	// the reply, waiting or claimed (being handled).
	// Its Message is nil when the request was skimmed (FindPending on a
	// store that skims an index), not read whole.
	Where store.Stored `json:"-"`
	// Overdue reports that its due time has passed.
	Overdue bool `json:"overdue"`
}

// FindPending returns the requests in b that have no reply stored, oldest
// first (see PendingOf). It goes through b once, keeping only the
// requests and what answers them; on a store that skims an index (store.CanSkim) it reads no message
// whole (Where is where the request was skimmed, without its Message).
func FindPending(ctx context.Context, b *store.Store, f PendingFilter) ([]StoredPending, error) {
	if f.Now.IsZero() {
		f.Now = time.Now()
	}
	return pendingScan(f, func(fn func(*item) bool) error { return each(ctx, b, nil, fn) })
}

// PendingOf returns the requests among all that have no reply, oldest
// first. A request is a message with expects_reply, or a task. A message
// is answered by a message from its recipient back to its sender with
// reply_to naming it; a task by a task_update of the same task, in a
// final state, from the agent it was sent to. Requests in an archive
// (their task ended, or their agent is gone) are not pending any more.
// The due time is reply_by, else the task's deadline, else the request's
// time plus f.ReplyTimeout.
func PendingOf(all []store.Stored, f PendingFilter) []StoredPending {
	if f.Now.IsZero() {
		f.Now = time.Now()
	}
	out, _ := pendingScan(f, func(fn func(*item) bool) error {
		for _, s := range all {
			if !fn(&item{sum: store.Summarize(s.Message), at: s}) {
				break
			}
		}
		return nil
	})
	return out
}

// has reports whether m holds k.
func has[K comparable](m map[K]struct{}, k K) bool {
	_, ok := m[k]
	return ok
}

// overdue reports whether request s is past its due time (see PendingOf).
func overdue(s *store.Summary, f PendingFilter) bool {
	due := s.ReplyBy
	if due.IsZero() && s.Type == envelope.TypeTask && s.Task != nil {
		due = s.Task.Deadline
	}
	if due.IsZero() && f.ReplyTimeout > 0 {
		due = s.Timestamp.Add(f.ReplyTimeout)
	}
	return !due.IsZero() && due.Before(f.Now)
}

// storedPendingOf returns the pending reply of request it: from the
// message when it was read whole, else from its summary. ok is false
// when f keeps overdue requests only and this one is not.
func storedPendingOf(it *item, f PendingFilter) (StoredPending, bool) {
	if it.at.Message != nil {
		return newStoredPending(it.at, f)
	}
	s := &it.sum
	p := StoredPending{PendingReply: PendingReply{MessageID: s.ID, From: s.From, To: s.To, Type: s.Type,
		ThreadID: s.ThreadID, TaskID: s.TaskOf(), Subject: s.Subject, SentAt: envelope.NewTime(s.Timestamp)},
		Where: it.at}
	due := s.ReplyBy
	if due.IsZero() && s.Type == envelope.TypeTask && s.Task != nil {
		due = s.Task.Deadline
	}
	if due.IsZero() && f.ReplyTimeout > 0 {
		due = s.Timestamp.Add(f.ReplyTimeout)
	}
	if !due.IsZero() {
		d := envelope.NewTime(due)
		p.Due = &d
	}
	p.Overdue = p.Due != nil && p.Due.Before(f.Now)
	return p, p.Overdue || !f.OverdueOnly
}

// newStoredPending returns the pending reply of request st, read whole;
// ok is false when f keeps overdue requests only and this one is not.
func newStoredPending(st store.Stored, f PendingFilter) (StoredPending, bool) {
	if f.Now.IsZero() {
		f.Now = time.Now()
	}
	m := st.Message
	p := StoredPending{PendingReply: PendingFromMessage(m), Where: st}
	if m.Type == envelope.TypeTask && m.Task != nil && p.Due == nil {
		p.Due = m.Task.Deadline
	}
	if p.Due == nil && f.ReplyTimeout > 0 {
		due := envelope.NewTime(m.Timestamp.Add(f.ReplyTimeout))
		p.Due = &due
	}
	p.Overdue = p.Due != nil && p.Due.Before(f.Now)
	return p, p.Overdue || !f.OverdueOnly
}
