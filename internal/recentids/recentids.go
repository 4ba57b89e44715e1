package recentids

import (
	"iter"
	"slices"
)

// Set holds the last n ids added. It is not safe for concurrent use.
type Set struct {
	n    int
	ids  map[string]struct{}
	ring []string // the ids in the order added; once full, the oldest at next
	next int
}

// New returns an empty Set of the last n ids (n at least 1). It takes
// memory as ids come: a full ring of 65,536 ids is about 1 MB, which a
// process that starts and handles a few would pay for, and its garbage
// collector scan, if it were made at once.
func New(n int) *Set { return &Set{n: max(n, 1), ids: map[string]struct{}{}} }

// Has reports whether id is one of the last n added.
func (s *Set) Has(id string) bool {
	_, ok := s.ids[id]
	return ok
}

// Add adds id, forgetting the oldest once n were added, and reports
// whether it was new: an id held already is not added again. The empty
// string is no id: it is never held.
func (s *Set) Add(id string) bool {
	if id == "" || s.Has(id) {
		return false
	}
	if len(s.ring) < s.n {
		s.ring = append(s.ring, id)
	} else {
		delete(s.ids, s.ring[s.next]) // a forgotten id's slot is empty
		s.ring[s.next] = id
		s.next = (s.next + 1) % s.n
	}
	s.ids[id] = struct{}{}
	return true
}

// Forget drops id, so that adding it again reports it new. Its slot
// stays, empty, until it comes round: the ids added after it are
// forgotten no sooner.
func (s *Set) Forget(id string) {
	if !s.Has(id) {
		return
	}
	delete(s.ids, id)
	s.ring[slices.Index(s.ring, id)] = ""
}

// Len returns how many ids are held.
func (s *Set) Len() int { return len(s.ids) }

// All yields the ids held, the oldest first.
func (s *Set) All() iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := range s.ring {
			if id := s.ring[(s.next+i)%len(s.ring)]; id != "" && !yield(id) {
				return
			}
		}
	}
}
