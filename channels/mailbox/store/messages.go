package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// Browse calls fn for each message the store still holds, wherever it is
// (pending, claimed, handled, archived), in no particular order, until fn
// returns false or ctx ends (see driver.Browser). A store that keeps no
// messages it can list fails with ErrNotSupported.
func (s *Store) Browse(ctx context.Context, fn func(Stored) bool) error {
	br, ok := s.be.(driver.Browser)
	if !ok {
		return notSupported(CanBrowse)
	}
	return br.Browse(ctx, fn)
}

// Skim calls fn for each message in the mailboxes of agents (every
// agent's when agents is nil), by its summary, until fn returns false or
// ctx ends: from the backend's index (CanSkim), else through Browse,
// which reads each message whole and hands it over in Skimmed.Message.
func (s *Store) Skim(ctx context.Context, agents []string, fn func(Skimmed) bool) error {
	if sk, ok := s.be.(driver.Skimmer); ok {
		return sk.Skim(ctx, agents, fn)
	}
	return s.Browse(ctx, func(st Stored) bool {
		if agents != nil && !slices.Contains(agents, st.Agent) {
			return true
		}
		return fn(Skimmed{Summary: Summarize(st.Message), Agent: st.Agent, Box: st.Box, Ref: st.Ref, Message: st.Message})
	})
}

// Fetch reads the message sk names whole, where it is now (see
// driver.Skimmer): sk.Message when Skim read it, else the backend's
// Fetch, else a Browse of the store for it. A message that is gone fails
// with an error wrapping fs.ErrNotExist.
func (s *Store) Fetch(ctx context.Context, sk Skimmed) (Stored, error) {
	if sk.Message != nil {
		return Stored{Message: sk.Message, Agent: sk.Agent, Box: sk.Box, Ref: sk.Ref}, nil
	}
	if f, ok := s.be.(driver.Skimmer); ok {
		return f.Fetch(ctx, sk)
	}
	var found *Stored
	err := s.Browse(ctx, func(st Stored) bool {
		m := st.Message
		if st.Agent == sk.Agent && m.ID == sk.Summary.ID && m.Timestamp.Equal(sk.Summary.Timestamp) {
			found = &st
		}
		return found == nil
	})
	if err != nil {
		return Stored{}, err
	}
	if found == nil {
		return Stored{}, fmt.Errorf("message %s in the mailbox of %s: %w", sk.Summary.ID, sk.Agent, fs.ErrNotExist)
	}
	return *found, nil
}

// unhandled reports whether a message in box still waits for its
// receiver: pending, or claimed and not acknowledged (a broker's inbox
// holds a message until its receiver acknowledges it).
func unhandled(b Box) bool { return b == BoxInbox || b == BoxClaimed }

// Pending calls fn for each message waiting in agent's inbox, oldest
// first, until fn returns false or ctx ends: ref names the item, and msg
// is nil when err says why it cannot be read. The backend's own listing
// (CanListPending) includes what its receiver will set aside as
// unreadable; the emulation through Browse lists the messages not yet
// handled, pending or claimed, by timestamp then id. An agent without an
// inbox has nothing pending (the backend may say so with fs.ErrNotExist).
func (s *Store) Pending(ctx context.Context, agent string, fn func(ref string, msg *envelope.Message, err error) bool) error {
	if pl, ok := s.be.(driver.PendingLister); ok {
		return pl.Pending(ctx, agent, fn)
	}
	var found []Stored
	err := s.Browse(ctx, func(st Stored) bool {
		if st.Agent == agent && unhandled(st.Box) {
			found = append(found, st)
		}
		return true
	})
	if err != nil {
		return err
	}
	slices.SortStableFunc(found, func(x, y Stored) int {
		return cmp.Or(x.Message.Timestamp.Compare(y.Message.Timestamp.Time), strings.Compare(x.Message.ID, y.Message.ID))
	})
	for _, st := range found {
		if !fn(st.Ref, st.Message, nil) {
			break
		}
	}
	return nil
}

// Depths returns how many messages wait in the inboxes of agents and of
// every other agent the store holds an inbox or messages for: the
// backend's own count of its inboxes (CanCount: pending messages), else
// one Browse counting the messages not handled yet, pending or claimed.
// An agent without an inbox has 0.
func (s *Store) Depths(ctx context.Context, agents []string) (map[string]int, error) {
	depths := map[string]int{}
	if c, ok := s.be.(driver.InboxCounter); ok {
		more, err := c.Agents()
		if err != nil && !isNotExist(err) {
			return nil, err
		}
		for _, id := range append(slices.Clone(agents), more...) {
			n, err := c.Depth(id)
			if err != nil && !isNotExist(err) {
				return nil, fmt.Errorf("inbox of %s: %w", id, err)
			}
			depths[id] = n
		}
		return depths, nil
	}
	for _, id := range agents {
		depths[id] = 0
	}
	err := s.Browse(ctx, func(st Stored) bool {
		if unhandled(st.Box) {
			depths[st.Agent]++
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return depths, nil
}

// Depth returns how many messages wait in agent's inbox, as Depths counts
// them.
func (s *Store) Depth(ctx context.Context, agent string) (int, error) {
	if c, ok := s.be.(driver.InboxCounter); ok {
		n, err := c.Depth(agent)
		if isNotExist(err) {
			return 0, nil
		}
		return n, err
	}
	n := 0
	err := s.Browse(ctx, func(st Stored) bool {
		if st.Agent == agent && unhandled(st.Box) {
			n++
		}
		return true
	})
	return n, err
}

// InboxAgents returns the agents the store holds an inbox for, registered
// or not, sorted (the folder store lists its folders). A store that
// cannot tell without reading every message fails with ErrNotSupported.
func (s *Store) InboxAgents() ([]string, error) {
	c, ok := s.be.(driver.InboxCounter)
	if !ok {
		return nil, notSupported(CanCount)
	}
	return c.Agents()
}

// isNotExist reports whether err says there is no such inbox.
func isNotExist(err error) bool { return err != nil && errors.Is(err, fs.ErrNotExist) }
