package view

import (
	"context"
	"hash/maphash"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// findThread returns the thread (see threadOf) of message id, or, when
// no message has that id or asTask is set, of task id (see
// threadOfTask); nil when there is none.
//
// On a store that skims an index (store.CanSkim) it goes through the store twice and never holds the
// summary of every message: the first pass keeps of each message only a
// hash of its id, reply_to and thread id (and its agent) and finds the
// task's request; the links are followed on those hashes, which gives a
// superset of the messages threadOf looks at (a collision only adds
// some); the second pass goes through the mailboxes that hold one of
// them and keeps their summaries, on which threadOf decides exactly.
// Another store is read once, whole.
func findThread(ctx context.Context, b *store.Store, id string, asTask bool) ([]threadItem, error) {
	if !b.Has(store.CanSkim) {
		all, err := collect(ctx, b)
		if err != nil {
			return nil, err
		}
		if !asTask {
			if chain := threadOf(all, id); len(chain) > 0 {
				return chain, nil
			}
		}
		return threadOfTask(all, id), nil
	}
	seed := maphash.MakeSeed()
	hash := func(s string) uint64 {
		if s == "" {
			return 0
		}
		return maphash.String(seed, s) | 1 // never 0, which stands for ""
	}
	var (
		keys   linkKeys
		agents []string
		agentN = map[string]int32{}
		found  bool  // a message has the id
		start  *item // the task's request, as threadOfTask picks it
	)
	err := each(ctx, b, nil, func(it *item) bool {
		m := &it.sum
		a, ok := agentN[it.at.Agent]
		if !ok {
			a = int32(len(agents))
			agents = append(agents, it.at.Agent)
			agentN[it.at.Agent] = a
		}
		keys.add(linkKey{id: hash(m.ID), replyTo: hash(m.ReplyTo), thread: hash(m.ThreadID), agent: a})
		found = found || m.ID == id
		if m.TaskOf() == id && startsTask(it, start) {
			cp := *it
			start = &cp
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	root := id
	if asTask || !found {
		if start == nil {
			return nil, nil
		}
		root = start.sum.ID
	}
	l := newLinks(hash(root))
	l.close(&keys)
	visit := make([]bool, len(agents))
	keys.each(func(_ int, k *linkKey) {
		if l.linked(*k) {
			visit[k.agent] = true
		}
	})
	var only []string
	for a, v := range visit {
		if v {
			only = append(only, agents[a])
		}
	}
	keys = linkKeys{}
	var cands []*item
	var arena itemArena
	if len(only) > 0 {
		err = each(ctx, b, only, func(it *item) bool {
			m := &it.sum
			if l.linked(linkKey{id: hash(m.ID), replyTo: hash(m.ReplyTo), thread: hash(m.ThreadID)}) {
				cands = append(cands, arena.new(*it))
			}
			return true
		})
	}
	if err != nil {
		return nil, err
	}
	return threadOf(cands, root), nil
}

// startsTask reports whether it is a better start for its task's thread
// than start (nil: none yet): a message of type task before any other,
// then the earliest.
func startsTask(it, start *item) bool {
	if start == nil {
		return true
	}
	isTask, was := it.sum.Type == envelope.TypeTask, start.sum.Type == envelope.TypeTask
	return isTask && !was || isTask == was && compareItems(it, start) < 0
}

// linkKey is what the first pass of findThread keeps of a message: the
// hashes of its id, reply_to and thread id (0 for none), and its agent.
type linkKey struct {
	id, replyTo, thread uint64
	agent               int32
}

// links is candidates on hashes: the hashes of the ids of the messages
// taken, of the ids they answer or name as thread, and of their thread
// ids.
type links struct {
	root                   uint64
	ids, answered, threads map[uint64]bool
}

func newLinks(root uint64) *links {
	return &links{root: root, ids: map[uint64]bool{}, answered: map[uint64]bool{}, threads: map[uint64]bool{}}
}

// linked reports whether the message of k is linked to those taken, as
// candidates decides.
func (l *links) linked(k linkKey) bool {
	return k.id == l.root || l.answered[k.id] || k.replyTo != 0 && l.ids[k.replyTo] ||
		k.thread != 0 && (l.ids[k.thread] || l.threads[k.thread])
}

// close takes every message of keys linked to those taken, until no more
// is.
func (l *links) close(keys *linkKeys) {
	in := make([]bool, keys.n)
	for changed := true; changed; {
		changed = false
		keys.each(func(i int, k *linkKey) {
			if in[i] || !l.linked(*k) {
				return
			}
			in[i], changed = true, true
			l.ids[k.id] = true
			if k.replyTo != 0 {
				l.answered[k.replyTo] = true
			}
			if k.thread != 0 {
				l.answered[k.thread], l.threads[k.thread] = true, true
			}
		})
	}
}

// linkKeyChunk is how many keys linkKeys holds per chunk.
const linkKeyChunk = 8192

// linkKeys is a list of keys that grows by chunks instead of copying
// itself as it doubles.
type linkKeys struct {
	chunks [][]linkKey
	n      int
}

func (ks *linkKeys) add(k linkKey) {
	if ks.n%linkKeyChunk == 0 {
		ks.chunks = append(ks.chunks, make([]linkKey, 0, linkKeyChunk))
	}
	last := &ks.chunks[len(ks.chunks)-1]
	*last = append(*last, k)
	ks.n++
}

// each calls fn with each key and its position, in order.
func (ks *linkKeys) each(fn func(int, *linkKey)) {
	i := 0
	for _, c := range ks.chunks {
		for j := range c {
			fn(i, &c[j])
			i++
		}
	}
}
