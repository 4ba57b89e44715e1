package store

import (
	"context"
	"errors"
	"io/fs"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Backlog is what waits in one agent's inbox.
type Backlog struct {
	// Depth is how many messages wait (on a store without a count of its
	// own: every message not acknowledged yet, pending or claimed).
	Depth int
	// Oldest is the timestamp of the oldest of them (zero when none).
	Oldest time.Time
}

// Backlog reads what waits in agent's inbox: the backend's own count and
// list when it has them (CanCount and CanListPending: the folder store),
// else the messages it browses. An agent without an inbox has nothing
// waiting; a store that can do neither fails with ErrNotSupported.
func (s *Store) Backlog(ctx context.Context, agent string) (in Backlog, err error) {
	counter, counts := s.be.(driver.InboxCounter)
	lister, lists := s.be.(driver.PendingLister)
	if counts && lists {
		if in.Depth, err = counter.Depth(agent); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return in, err
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
		return in, err
	}
	err = s.Browse(ctx, func(st Stored) bool {
		if st.Agent != agent || !unhandled(st.Box) {
			return true
		}
		in.Depth++
		if at := st.Message.Timestamp.Time; in.Oldest.IsZero() || at.Before(in.Oldest) {
			in.Oldest = at
		}
		return true
	})
	return in, err
}
