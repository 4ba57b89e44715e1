package channels

import (
	"iter"
	"time"
)

// DedupWindow is how long a Journal remembers the id of a message it
// finished, to take a platform's late retry of the same event as a
// duplicate. Platforms retry within hours (Feishu's last retry comes six
// hours after the event).
const DedupWindow = 24 * time.Hour

// maxSeen caps the finished ids a Journal remembers; the oldest are
// forgotten first.
const maxSeen = 100_000

// finished is the set of ids finished lately, oldest first. It is not
// safe for concurrent use (the Journal's lock guards it).
type finished struct {
	at    map[string]time.Time
	order []string // by finishing time; may hold ids no longer in at
}

func newFinished() finished { return finished{at: map[string]time.Time{}} }

// add records id finished at t (the zero time: now).
func (f *finished) add(id string, t time.Time) {
	if t.IsZero() || t.Unix() <= 0 {
		t = time.Now()
	}
	if _, ok := f.at[id]; !ok {
		f.order = append(f.order, id)
	}
	f.at[id] = t
	for len(f.at) > maxSeen {
		f.pop()
	}
}

// has reports whether id was finished within DedupWindow of now.
func (f *finished) has(id string, now time.Time) bool {
	t, ok := f.at[id]
	return ok && now.Sub(t) < DedupWindow
}

// expire forgets the ids finished more than DedupWindow before now.
func (f *finished) expire(now time.Time) {
	for len(f.order) > 0 {
		t, ok := f.at[f.order[0]]
		if ok && now.Sub(t) < DedupWindow {
			return
		}
		f.pop()
	}
}

// pop forgets the oldest id.
func (f *finished) pop() {
	delete(f.at, f.order[0])
	f.order = f.order[1:]
}

func (f *finished) len() int { return len(f.at) }

// all yields the ids with their finishing times, oldest first.
func (f *finished) all() iter.Seq2[string, time.Time] {
	return func(yield func(string, time.Time) bool) {
		for _, id := range f.order {
			if t, ok := f.at[id]; ok && !yield(id, t) {
				return
			}
		}
	}
}
