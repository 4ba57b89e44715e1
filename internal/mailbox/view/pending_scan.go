package view

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

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
