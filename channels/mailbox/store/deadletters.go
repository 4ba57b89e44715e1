package store

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store/driver"
)

// MetaRedeliveredFrom is the metadata key of a redelivered copy that names
// the id of the message it copies (envelope.MetaRedeliveredFrom).
const MetaRedeliveredFrom = envelope.MetaRedeliveredFrom

// RedeliveryCopy returns the copy of set-aside message m that Redeliver
// stores: the same message under a fresh id, because a receiver drops an
// id it has handled and setting a message aside counts as handling it.
// The thread (the original id when m started it), the task, reply_to and
// the trace stay; metadata redelivered_from names the original id (the
// first message's, for a copy of a copy), and the signature stays: the
// copy verifies as its original (envelope.VerifySignature).
func RedeliveryCopy(m *envelope.Message) *envelope.Message {
	c := *m
	c.ID = envelope.NewID()
	c.ThreadID = cmp.Or(m.ThreadID, m.ID)
	c.Metadata = maps.Clone(m.Metadata)
	if c.Metadata == nil {
		c.Metadata = map[string]any{}
	}
	if from, ok := c.Metadata[MetaRedeliveredFrom].(string); !ok || from == "" {
		c.Metadata[MetaRedeliveredFrom] = m.ID
	}
	return &c
}

// deadLetters returns the backend's dead letters, or ErrNotSupported.
func (s *Store) deadLetters() (driver.DeadLetters, error) {
	dl, ok := s.be.(driver.DeadLetters)
	if !ok {
		return nil, notSupported(CanDeadLetters)
	}
	return dl, nil
}

// SetAside returns what agent's inbox set aside (quarantined as
// unreadable, refused by policy, handed out too often), oldest first; of
// every agent the store knows when agent is "" (see SetAsideAgents), an
// agent whose list cannot be read being skipped with a warning. A store
// that cannot list them fails with ErrNotSupported.
func (s *Store) SetAside(ctx context.Context, agent string) ([]SetAside, error) {
	dl, err := s.deadLetters()
	if err != nil {
		return nil, err
	}
	if agent != "" {
		return dl.SetAside(ctx, agent)
	}
	agents, err := s.SetAsideAgents(ctx)
	if err != nil {
		return nil, err
	}
	var out []SetAside
	for _, a := range agents {
		items, err := dl.SetAside(ctx, a)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			s.log.Warn("list set-aside messages", "agent", a, "err", err)
			continue
		}
		out = append(out, items...)
	}
	slices.SortStableFunc(out, func(a, b SetAside) int { return a.Time.Compare(b.Time) })
	return out, nil
}

// SetAsideAgents returns, sorted, every agent that may have set-aside
// messages: those with a card, those with an inbox but no card (the
// folder store knows them) and those the backend names as having some
// (NATS reads them from its stream).
func (s *Store) SetAsideAgents(ctx context.Context) ([]string, error) {
	cards, err := s.be.Cards(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range cards {
		out = append(out, c.AgentID)
	}
	if ic, ok := s.be.(driver.InboxCounter); ok {
		more, err := ic.Agents()
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	if da, ok := s.be.(driver.DeadLetterAgents); ok {
		more, err := da.DeadLetterAgents(ctx)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Redeliver puts a copy of agent's set-aside message ref back into its
// inbox (RedeliveryCopy says why a copy) and removes the set-aside one. It
// returns the original message. A message that cannot be read, or is
// addressed to another agent, is refused; ref naming nothing set aside
// fails with ErrNotSetAside.
func (s *Store) Redeliver(ctx context.Context, agent, ref string) (*envelope.Message, error) {
	dl, err := s.deadLetters()
	if err != nil {
		return nil, err
	}
	if err := envelope.ValidateAgentID(agent); err != nil {
		return nil, err
	}
	items, err := dl.SetAside(ctx, agent)
	if err != nil {
		return nil, err
	}
	at := slices.IndexFunc(items, func(it SetAside) bool { return it.Ref == ref })
	if at < 0 {
		return nil, fmt.Errorf("%w: %s of %q", ErrNotSetAside, ref, agent)
	}
	msg := items[at].Message
	if msg == nil {
		return nil, fmt.Errorf("redeliver %s: cannot be read: %w", ref, items[at].Err)
	}
	if msg.To != agent {
		return nil, fmt.Errorf("redeliver %s: it is addressed to %q, not %q", ref, msg.To, agent)
	}
	if err := dl.Redeliver(ctx, agent, ref, RedeliveryCopy(msg)); err != nil {
		return nil, err
	}
	return msg, nil
}

// Discard removes agent's set-aside message ref for good; ref naming
// nothing set aside fails with ErrNotSetAside.
func (s *Store) Discard(ctx context.Context, agent, ref string) error {
	dl, err := s.deadLetters()
	if err != nil {
		return err
	}
	return dl.Discard(ctx, agent, ref)
}
