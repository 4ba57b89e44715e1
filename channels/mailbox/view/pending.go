package view

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
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
	// Its Message is nil when the request was skimmed (FindPending on a
	// store.Skimmer), not read whole.
	Where store.Stored `json:"-"`
	// Overdue reports that its due time has passed.
	Overdue bool `json:"overdue"`
}

// FindPending returns the requests in b that have no reply stored, oldest
// first (see PendingOf). It goes through b once, keeping only the
// requests and what answers them; on a store.Skimmer it reads no message
// whole (Where is where the request was skimmed, without its Message).
func FindPending(ctx context.Context, b store.Browser, f PendingFilter) ([]StoredPending, error) {
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

// pendingEntry is a request pendingScan keeps: the pending reply it
// would be, and what its answer names.
type pendingEntry struct {
	StoredPending
	answerID string // the task's id for a task, else the message's id
	isTask   bool
}

// pendingChunk is how many entries pendingEntries allocates at a time.
const pendingChunk = 1024

// pendingEntries is a list of entries that grows by chunks instead of
// copying itself as it doubles.
type pendingEntries struct {
	chunks [][]pendingEntry // each of length pendingChunk
	n      int
}

func (l *pendingEntries) at(i int) *pendingEntry { return &l.chunks[i/pendingChunk][i%pendingChunk] }

func (l *pendingEntries) add(e pendingEntry) {
	if l.n == len(l.chunks)*pendingChunk {
		l.chunks = append(l.chunks, make([]pendingEntry, pendingChunk))
	}
	*l.at(l.n) = e
	l.n++
}

// drop removes the entries gone accepts, keeping the order of the
// others, and lets go of what they held.
func (l *pendingEntries) drop(gone func(*pendingEntry) bool) {
	w := 0
	for r := range l.n {
		if e := l.at(r); !gone(e) {
			if w != r {
				*l.at(w) = *e
			}
			w++
		}
	}
	for r := w; r < l.n; r++ {
		*l.at(r) = pendingEntry{}
	}
	keep := (w + pendingChunk - 1) / pendingChunk
	clear(l.chunks[keep:])
	l.chunks, l.n = l.chunks[:keep], w
}

// pendingScan goes through the messages visit hands it (an item is
// valid only during its call) and returns the requests among them that
// have no reply and pass f, oldest first. It keeps of each request that
// may be pending only the pending reply it would be, and of the other
// messages the keys of what they answer; one copy of each request (the
// one furthest along), none of one that has a copy in an archive.
func pendingScan(f PendingFilter, visit func(func(*item) bool) error) ([]StoredPending, error) {
	type answer struct{ id, from, to string }
	answered := map[answer]struct{}{}
	tasksDone := map[answer]struct{}{}
	archived := map[copyKey]struct{}{}
	names := map[string]string{} // agent ids, kept once
	name := func(s string) string {
		if v, ok := names[s]; ok {
			return v
		}
		s = strings.Clone(s)
		names[s] = s
		return s
	}
	settled := func(e *pendingEntry) bool { // answered, or archived
		return has(archived, copyKey{e.MessageID, e.From, e.To, e.SentAt.UnixNano()}) ||
			e.isTask && has(tasksDone, answer{e.answerID, e.To, e.From}) ||
			!e.isTask && has(answered, answer{e.answerID, e.To, e.From})
	}
	var kept pendingEntries
	next := pendingChunk // when to drop what was settled meanwhile: each time the list doubled
	err := visit(func(it *item) bool {
		m := &it.sum
		if kept.n >= next {
			kept.drop(settled)
			next = max(pendingChunk, 2*kept.n)
		}
		if m.ReplyTo != "" && m.Type != envelope.TypeTaskUpdate {
			answered[answer{strings.Clone(m.ReplyTo), name(m.From), name(m.To)}] = struct{}{}
		}
		if m.Type == envelope.TypeTaskUpdate && m.Task != nil && m.Task.State.Terminal() {
			tasksDone[answer{strings.Clone(m.Task.ID), name(m.From), name(m.To)}] = struct{}{}
		}
		isTask := m.Type == envelope.TypeTask && m.Task != nil
		switch {
		case !m.ExpectsReply && !isTask:
		case it.at.Box == store.BoxArchive:
			archived[copyKey{strings.Clone(m.ID), name(m.From), name(m.To), m.Timestamp.UnixNano()}] = struct{}{}
		case f.Agent != "" && m.From != f.Agent && m.To != f.Agent,
			f.TaskID != "" && m.TaskOf() != f.TaskID,
			f.OverdueOnly && !overdue(m, f),
			isTask && has(tasksDone, answer{m.Task.ID, m.To, m.From}),
			!isTask && has(answered, answer{m.ID, m.To, m.From}):
			// not pending, or answered by a message seen already
		default:
			p, ok := storedPendingOf(it, f)
			if !ok {
				return true
			}
			e := pendingEntry{StoredPending: p, answerID: m.ID, isTask: isTask}
			if isTask {
				e.answerID = m.Task.ID
			}
			kept.add(e)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	kept.drop(settled)
	rank := map[store.Box]int{store.BoxProcessed: 2, store.BoxClaimed: 1}
	best := map[copyKey]int{}
	out := make([]StoredPending, 0, kept.n)
	for i := range kept.n {
		e := kept.at(i)
		k := copyKey{e.MessageID, e.From, e.To, e.SentAt.UnixNano()}
		if j, ok := best[k]; ok { // a copy: keep the one furthest along
			if rank[e.Where.Box] > rank[out[j].Where.Box] {
				out[j] = e.StoredPending
			}
			continue
		}
		best[k] = len(out)
		out = append(out, e.StoredPending)
	}
	slices.SortFunc(out, comparePending)
	return out, nil
}

// comparePending orders pending replies as compareItems orders their
// requests.
func comparePending(a, b StoredPending) int {
	return cmp.Or(a.SentAt.Compare(b.SentAt.Time),
		cmp.Compare(filepath.Base(a.Where.Ref), filepath.Base(b.Where.Ref)), cmp.Compare(a.Where.Ref, b.Where.Ref))
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
