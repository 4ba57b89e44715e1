package view

import (
	"cmp"
	"container/heap"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// ErrNotFound is returned when no stored message has the id asked for.
var ErrNotFound = errors.New("message not found")

// ThreadEntry is one message of a thread, where it is now and how deep it
// sits below the message it answers.
type ThreadEntry struct {
	store.Stored
	// Depth is 0 for a message that answers none in the thread, else one
	// more than the message it answers.
	Depth int
}

// Thread returns the conversation message id belongs to, wherever its
// messages are now (pending, claimed, handled or archived), in causal
// order: see ThreadOf. When no message has that id, id is taken as a task
// id (see ThreadOfTask). It fails with ErrNotFound when neither names a
// message b holds. On a store that skims an index (store.CanSkim) only the thread's messages are read
// whole, and the summaries of the others are not kept (see findThread).
func Thread(ctx context.Context, b *store.Store, id string) ([]ThreadEntry, error) {
	chain, err := findThread(ctx, b, id, false)
	if err != nil {
		return nil, err
	}
	if len(chain) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return loadThread(ctx, b, chain)
}

// TaskThread is Thread for a task id only: the thread of the task's
// request (see ThreadOfTask).
func TaskThread(ctx context.Context, b *store.Store, taskID string) ([]ThreadEntry, error) {
	chain, err := findThread(ctx, b, taskID, true)
	if err != nil {
		return nil, err
	}
	if len(chain) == 0 {
		return nil, fmt.Errorf("%w: no message of task %s", ErrNotFound, taskID)
	}
	return loadThread(ctx, b, chain)
}

// threadItem is a member of a thread before it is read whole.
type threadItem struct {
	*item
	depth int
}

// loadThread reads the members of a thread whole. A member that is gone
// by now (pruned meanwhile) is left out.
func loadThread(ctx context.Context, b *store.Store, chain []threadItem) ([]ThreadEntry, error) {
	out := make([]ThreadEntry, 0, len(chain))
	for _, t := range chain {
		st, err := load(ctx, b, t.item)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, ThreadEntry{Stored: st, Depth: t.depth})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: its messages are gone", ErrNotFound)
	}
	return out, nil
}

// ThreadOfTask returns the thread of task taskID among all: the thread of
// its request (the earliest message of type task with that task id), or,
// when the request is gone, of the earliest message that belongs to it.
func ThreadOfTask(all []store.Stored, taskID string) []ThreadEntry {
	return entriesOf(threadOfTask(itemsOf(all), taskID))
}

func threadOfTask(all []*item, taskID string) []threadItem {
	var start *item
	for _, it := range all {
		if it.sum.TaskOf() == taskID && startsTask(it, start) {
			start = it
		}
	}
	if start == nil {
		return nil
	}
	return threadOf(all, start.sum.ID)
}

// entriesOf returns the entries of a thread of messages read whole.
func entriesOf(chain []threadItem) []ThreadEntry {
	out := make([]ThreadEntry, len(chain))
	for i, t := range chain {
		out[i] = ThreadEntry{Stored: t.at, Depth: t.depth}
	}
	return out
}

// ThreadOf returns the thread of message id among all: every message
// linked to it by reply_to (up and down) or sharing its thread id, each
// once (a copy of the same message in two places counts once). The order
// is causal: a message comes after the one it answers, and otherwise by
// timestamp, then file name. nanobot's ids are not unique; where an id
// names several messages the earliest is taken as the one answered.
func ThreadOf(all []store.Stored, id string) []ThreadEntry {
	return entriesOf(threadOf(itemsOf(all), id))
}

func threadOf(all []*item, id string) []threadItem {
	all = dedupItems(candidates(all, id))
	slices.SortStableFunc(all, compareItems)
	byID := map[string][]int{}
	replies := map[string][]int{}
	byThread := map[string][]int{}
	for i := range all {
		m := &all[i].sum
		byID[m.ID] = append(byID[m.ID], i)
		if m.ReplyTo != "" {
			replies[m.ReplyTo] = append(replies[m.ReplyTo], i)
		}
		if m.ThreadID != "" {
			byThread[m.ThreadID] = append(byThread[m.ThreadID], i)
		}
	}
	start, ok := byID[id]
	if !ok {
		return nil
	}
	in := map[int]bool{}
	queue := []int{start[0]}
	in[start[0]] = true
	add := func(idx []int) {
		for _, i := range idx {
			if !in[i] {
				in[i] = true
				queue = append(queue, i)
			}
		}
	}
	for len(queue) > 0 {
		m := &all[queue[0]].sum
		queue = queue[1:]
		if parents := byID[m.ReplyTo]; m.ReplyTo != "" && len(parents) > 0 {
			add(parents[:1])
		}
		add(replies[m.ID])
		add(byThread[m.ID])
		if m.ThreadID != "" {
			add(byThread[m.ThreadID])
			add(byID[m.ThreadID][:min(1, len(byID[m.ThreadID]))])
		}
	}
	return causalOrder(all, in, byID)
}

// candidates returns the items of all that can be in the thread of
// message id: those linked to it by reply_to or thread id, in either
// direction, taking every message with an id where threadOf takes the
// earliest. It is a superset of the thread that holds every item threadOf
// looks at, so threadOf gives the same answer on it as on all, and it is
// found with a few passes over all, without indexing or sorting it.
func candidates(all []*item, id string) []*item {
	ids := map[string]bool{}     // ids of the candidates
	linked := map[string]bool{}  // ids the candidates answer or name as thread
	threads := map[string]bool{} // thread ids of the candidates
	in := make([]bool, len(all))
	var out []*item
	for changed := true; changed; {
		changed = false
		for i := range all {
			m := &all[i].sum
			if in[i] || !(m.ID == id || linked[m.ID] || ids[m.ReplyTo] && m.ReplyTo != "" ||
				m.ThreadID != "" && (ids[m.ThreadID] || threads[m.ThreadID])) {
				continue
			}
			in[i], changed = true, true
			out = append(out, all[i])
			ids[m.ID] = true
			if m.ReplyTo != "" {
				linked[m.ReplyTo] = true
			}
			if m.ThreadID != "" {
				linked[m.ThreadID], threads[m.ThreadID] = true, true
			}
		}
	}
	return out
}

// causalOrder sorts the members of a thread: a message after its parent
// (the earliest member with the id in its reply_to), otherwise by
// timestamp and file name; members caught in a reply_to cycle come last.
func causalOrder(all []*item, in map[int]bool, byID map[string][]int) []threadItem {
	parent := map[int]int{}
	children := map[int][]int{}
	ready := &storedHeap{all: all}
	for i := range in {
		p, ok := -1, false
		for _, j := range byID[all[i].sum.ReplyTo] {
			if in[j] && j != i {
				p, ok = j, true
				break
			}
		}
		if all[i].sum.ReplyTo != "" && ok {
			parent[i] = p
			children[p] = append(children[p], i)
		} else {
			heap.Push(ready, i)
		}
	}
	depth := map[int]int{}
	done := map[int]bool{}
	var out []threadItem
	for ready.Len() > 0 {
		i := heap.Pop(ready).(int)
		if p, ok := parent[i]; ok {
			depth[i] = depth[p] + 1
		}
		done[i] = true
		out = append(out, threadItem{item: all[i], depth: depth[i]})
		for _, c := range children[i] {
			heap.Push(ready, c)
		}
	}
	if len(out) < len(in) { // a reply_to cycle: add the rest in plain order
		rest := &storedHeap{all: all}
		for i := range in {
			if !done[i] {
				heap.Push(rest, i)
			}
		}
		for rest.Len() > 0 {
			out = append(out, threadItem{item: all[heap.Pop(rest).(int)]})
		}
	}
	return out
}

// storedHeap orders indexes of all by timestamp, then file name, then ref.
type storedHeap struct {
	all []*item
	idx []int
}

func (h *storedHeap) Len() int { return len(h.idx) }
func (h *storedHeap) Less(a, b int) bool {
	return compareItems(h.all[h.idx[a]], h.all[h.idx[b]]) < 0
}
func (h *storedHeap) Swap(a, b int) { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *storedHeap) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *storedHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

// CompareStored orders stored messages by timestamp, then file name,
// then ref.
func CompareStored(a, b store.Stored) int {
	return cmp.Or(a.Message.Timestamp.Compare(b.Message.Timestamp.Time),
		cmp.Compare(filepath.Base(a.Ref), filepath.Base(b.Ref)), cmp.Compare(a.Ref, b.Ref))
}

// DedupStored keeps one copy of each message (same id, sender, recipient
// and timestamp): the one furthest along (archive, processed, claimed,
// inbox).
func DedupStored(all []store.Stored) []store.Stored {
	type key struct{ id, from, to, ts string }
	rank := map[store.Box]int{store.BoxArchive: 3, store.BoxProcessed: 2, store.BoxClaimed: 1}
	best := map[key]int{}
	var out []store.Stored
	for _, s := range all {
		m := s.Message
		k := key{m.ID, m.From, m.To, m.Timestamp.String()}
		if i, ok := best[k]; ok {
			if rank[s.Box] > rank[out[i].Box] {
				out[i] = s
			}
			continue
		}
		best[k] = len(out)
		out = append(out, s)
	}
	return out
}
