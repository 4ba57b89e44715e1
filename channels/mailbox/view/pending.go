package view

import (
	"context"
	"errors"
	"slices"
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
	// the reply (not yet read) or its claimed/ folder (being handled).
	Where store.Stored `json:"-"`
	// Overdue reports that its due time has passed.
	Overdue bool `json:"overdue"`
}

// FindPending returns the requests in b that have no reply stored, oldest
// first (see PendingOf).
func FindPending(ctx context.Context, b store.Browser, f PendingFilter) ([]StoredPending, error) {
	var all []store.Stored
	if err := b.Browse(ctx, func(s store.Stored) bool { all = append(all, s); return true }); err != nil {
		return nil, err
	}
	return PendingOf(all, f), nil
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
	all = DedupStored(all)
	type answer struct{ id, from, to string }
	answered := map[answer]bool{}
	tasksDone := map[answer]bool{}
	for _, s := range all {
		m := s.Message
		if m.ReplyTo != "" && m.Type != envelope.TypeTaskUpdate {
			answered[answer{m.ReplyTo, m.From, m.To}] = true
		}
		if m.Type == envelope.TypeTaskUpdate && m.Task != nil && m.Task.State.Terminal() {
			tasksDone[answer{m.Task.ID, m.From, m.To}] = true
		}
	}
	var out []StoredPending
	for _, s := range all {
		m := s.Message
		isTask := m.Type == envelope.TypeTask && m.Task != nil
		switch {
		case !m.ExpectsReply && !isTask,
			s.Box == store.BoxArchive,
			isTask && tasksDone[answer{m.Task.ID, m.To, m.From}],
			!isTask && answered[answer{m.ID, m.To, m.From}],
			f.Agent != "" && m.From != f.Agent && m.To != f.Agent,
			f.TaskID != "" && m.TaskOf() != f.TaskID:
			continue
		}
		p := StoredPending{PendingReply: PendingFromMessage(m), Where: s}
		if isTask && p.Due == nil {
			p.Due = m.Task.Deadline
		}
		if p.Due == nil && f.ReplyTimeout > 0 {
			due := envelope.NewTime(m.Timestamp.Add(f.ReplyTimeout))
			p.Due = &due
		}
		p.Overdue = p.Due != nil && p.Due.Before(f.Now)
		if f.OverdueOnly && !p.Overdue {
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b StoredPending) int { return CompareStored(a.Where, b.Where) })
	return out
}
