package backlog

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Inbox is what waits in one agent's inbox.
type Inbox struct {
	// Depth is how many messages wait (on a store without a count of its
	// own: every message not acknowledged yet, pending or claimed).
	Depth int
	// Oldest is the timestamp of the oldest of them (zero when none).
	Oldest time.Time
}

// Read reads what waits in agent's inbox on be: the store's own count
// and list when it has them (store.InboxCounter, store.PendingLister: the
// folder store), else the messages it browses (store.Browser). An agent
// without an inbox has nothing waiting; ok is false when the store can do
// neither.
func Read(ctx context.Context, be store.Backend, agent string) (in Inbox, ok bool, err error) {
	counter, counts := be.(store.InboxCounter)
	lister, lists := be.(store.PendingLister)
	if counts && lists {
		if in.Depth, err = counter.Depth(agent); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return in, true, err
		}
		err = lister.Pending(ctx, agent, func(_ string, m *envelope.Message, _ error) bool {
			if m == nil {
				return true // unreadable: it is set aside, not waiting
			}
			in.Oldest = m.Timestamp.Time
			return false
		})
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		return in, true, err
	}
	br, ok := be.(store.Browser)
	if !ok {
		return in, false, nil
	}
	err = br.Browse(ctx, func(st store.Stored) bool {
		if st.Agent != agent || (st.Box != store.BoxInbox && st.Box != store.BoxClaimed) {
			return true
		}
		in.Depth++
		if at := st.Message.Timestamp.Time; in.Oldest.IsZero() || at.Before(in.Oldest) {
			in.Oldest = at
		}
		return true
	})
	return in, true, err
}
