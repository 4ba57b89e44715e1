package mailbox

import (
	"context"
	"errors"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// This file holds the receive path's looks at what the store holds, for
// what the agent's own records cannot say: a message handed over again
// after a restart that was answered or ended before it, or one answered or
// ended by another process on the agent's behalf (the command line).

// storedReply reports whether the store holds a reply from this agent to
// request p (sent by another process on its behalf, or before a restart).
// The reply is in the asker's mailbox, so only that one is looked at.
func (c *Channel) storedReply(ctx context.Context, p view.PendingReply) bool {
	found, err := c.storedIn(ctx, p.From, func(m *store.Summary) bool {
		return m.ReplyTo == p.MessageID && m.From == c.cfg.AgentID && m.To == p.From
	})
	if err != nil && !errors.Is(err, store.ErrTurnedOff) {
		c.Logger().Warn("look for a stored reply", "id", p.MessageID, "err", err)
	}
	return found
}

// storedIn reports whether the mailbox of agent holds a message match
// accepts: skimmed through the store's index where it keeps one, else
// browsed; false on a store that can do neither.
func (c *Channel) storedIn(ctx context.Context, agent string, match func(*store.Summary) bool) (bool, error) {
	found := false
	err := c.backend.Skim(ctx, []string{agent}, func(s store.Skimmed) bool {
		found = match(&s.Summary)
		return !found
	})
	if errors.Is(err, store.ErrNotSupported) {
		return false, nil
	}
	return found, err
}

// storedFinal reports whether the store holds this agent's final update
// of task taskID, sent to agent `to` (its delegator).
func (c *Channel) storedFinal(ctx context.Context, taskID, to string) bool {
	found, _ := c.storedIn(ctx, to, func(m *store.Summary) bool {
		return m.Type == envelope.TypeTaskUpdate && m.Task != nil && m.Task.ID == taskID &&
			m.Task.State.Terminal() && m.From == c.cfg.AgentID && m.To == to
	})
	return found
}

// receivedTask reports whether the store holds the task taskID that agent
// `from` sent this agent.
func (c *Channel) receivedTask(ctx context.Context, taskID, from string) bool {
	found, _ := c.storedIn(ctx, c.cfg.AgentID, func(m *store.Summary) bool {
		return m.Type == envelope.TypeTask && m.Task != nil && m.Task.ID == taskID &&
			m.From == from && m.To == c.cfg.AgentID
	})
	return found
}

// storedTask reports whether the store holds the task taskID this agent
// sent to agent `to`: a task sent on this agent's behalf from elsewhere
// (the command line) has no record here, and its final update still ends
// it.
func (c *Channel) storedTask(ctx context.Context, taskID, to string) bool {
	match := func(m *store.Summary) bool {
		return m.Type == envelope.TypeTask && m.Task != nil && m.Task.ID == taskID &&
			m.From == c.cfg.AgentID && m.To == to
	}
	// The store's listing follows a message that moves on while it is
	// listed (the worker archiving the task as this update arrives), so
	// one look finds it.
	found, _ := c.storedIn(ctx, to, match)
	return found
}
