package console

import (
	"context"
	"errors"
	"io/fs"
	"sync"

	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// messages is the console's copy of the stored messages, read
// incrementally: each read lists the store (store.Store.Skim: on the
// folder store the folders' file names and the store's index of
// summaries) and reads whole only the messages it has not read before
// (new ones, and those moved to another folder since); the others come
// from the copy. A store that cannot skim is browsed whole.
type messages struct {
	mu    sync.Mutex
	byRef map[refKey]store.Stored
}

// refKey is where a message is: the agent whose mailbox holds it and the
// store's name for the item (a file's path, a stream sequence).
type refKey struct{ agent, ref string }

// read returns every stored message as it is now, copies included.
func (m *messages) read(ctx context.Context, s *store.Store) ([]store.Stored, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	next := make(map[refKey]store.Stored, len(m.byRef))
	all := make([]store.Stored, 0, len(m.byRef))
	var failed error
	err := s.Skim(ctx, nil, func(sk store.Skimmed) bool {
		k := refKey{sk.Agent, sk.Ref}
		st, known := m.byRef[k]
		if !known || st.Message.ID != sk.Summary.ID || !st.Message.Timestamp.Equal(sk.Summary.Timestamp) {
			var err error
			if st, err = s.Fetch(ctx, sk); err != nil {
				if errors.Is(err, fs.ErrNotExist) || ctx.Err() == nil && !errors.Is(err, context.Canceled) {
					return true // gone since it was listed, or unreadable: skipped, as Browse does
				}
				failed = err
				return false
			}
		}
		st.Box = sk.Box // a message its receiver claimed keeps its name
		next[k] = st
		all = append(all, st)
		return true
	})
	if err == nil {
		err = failed
	}
	if err != nil {
		return nil, err
	}
	m.byRef = next
	return all, nil
}
