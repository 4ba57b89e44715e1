package view

import (
	"cmp"
	"context"
	"path/filepath"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// item is one message as a view decides on it: its summary and where it
// is. at.Message is the whole message when it was browsed, nil when it
// was skimmed (read it with load).
type item struct {
	sum store.Summary
	at  store.Stored
}

// itemsOf returns the items of messages read whole.
func itemsOf(all []store.Stored) []*item {
	out := make([]*item, len(all))
	for i, s := range all {
		out[i] = &item{sum: store.Summarize(s.Message), at: s}
	}
	return out
}

// itemChunk is how many items collect allocates at a time: a long listing
// grows by chunks instead of copying itself as it doubles.
const itemChunk = 4096

// itemArena hands out items from chunks.
type itemArena struct{ chunk []item }

func (a *itemArena) new(it item) *item {
	if len(a.chunk) == cap(a.chunk) {
		a.chunk = make([]item, 0, itemChunk)
	}
	a.chunk = append(a.chunk, it)
	return &a.chunk[len(a.chunk)-1]
}

// collect lists the messages of b: by their summaries when b skims them
// from an index (store.CanSkim), else read whole.
func collect(ctx context.Context, b *store.Store) ([]*item, error) {
	var out []*item
	var arena itemArena
	err := each(ctx, b, nil, func(it *item) bool {
		out = append(out, arena.new(*it))
		return true
	})
	return out, err
}

// each calls fn with each message of b in the mailboxes of agents (every
// agent's when agents is nil), until fn returns false: skimmed (Skim
// gives the message whole when it read it whole). The item is valid only
// during the call: fn copies what it keeps.
func each(ctx context.Context, b *store.Store, agents []string, fn func(*item) bool) error {
	var it item
	return b.Skim(ctx, agents, func(s store.Skimmed) bool {
		it = item{sum: s.Summary, at: store.Stored{Message: s.Message, Agent: s.Agent, Box: s.Box, Ref: s.Ref}}
		return fn(&it)
	})
}

// load returns it whole, where it is now: as browsed, or fetched from
// the index it was skimmed from.
func load(ctx context.Context, b *store.Store, it *item) (store.Stored, error) {
	if it.at.Message != nil {
		return it.at, nil
	}
	return b.Fetch(ctx, store.Skimmed{Summary: it.sum, Agent: it.at.Agent, Box: it.at.Box, Ref: it.at.Ref})
}

// compareItems orders items as CompareStored orders stored messages.
func compareItems(a, b *item) int {
	return cmp.Or(a.sum.Timestamp.Compare(b.sum.Timestamp),
		cmp.Compare(filepath.Base(a.at.Ref), filepath.Base(b.at.Ref)), cmp.Compare(a.at.Ref, b.at.Ref))
}

// copyKey is what the copies of one message share: its id, sender,
// recipient and time.
type copyKey struct {
	id, from, to string
	ts           int64
}

// dedupItems is DedupStored over items.
func dedupItems(all []*item) []*item {
	rank := map[store.Box]int{store.BoxArchive: 3, store.BoxProcessed: 2, store.BoxClaimed: 1}
	best := make(map[copyKey]int, len(all))
	var out []*item
	for _, it := range all {
		s := &it.sum
		k := copyKey{s.ID, s.From, s.To, s.Timestamp.UnixNano()}
		if i, ok := best[k]; ok {
			if rank[it.at.Box] > rank[out[i].at.Box] {
				out[i] = it
			}
			continue
		}
		best[k] = len(out)
		out = append(out, it)
	}
	return out
}
