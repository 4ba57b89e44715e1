package mailbox

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/clock"
)

// register writes the agent's card: identity from the config, status idle,
// no current tasks, fresh timestamps.
func (c *Channel) register(ctx context.Context) error {
	now := envelope.NewTime(c.clk.Now())
	_, err := c.backend.UpdateCard(ctx, c.cfg.AgentID, func(card *envelope.Card) {
		*card = envelope.Card{}
		c.fillIdentity(card, now)
		card.Status, card.CurrentTasks, card.LastHeartbeat = envelope.StatusIdle, []string{}, now
	})
	if err != nil {
		return fmt.Errorf("register agent %q: %w", c.cfg.AgentID, err)
	}
	return nil
}

// fillIdentity writes what the config says of the agent into card.
func (c *Channel) fillIdentity(card *envelope.Card, now envelope.Time) {
	card.AgentID, card.RegisteredAt = c.cfg.AgentID, now
	card.Description, card.Capabilities = c.cfg.Description, slices.Clone(c.cfg.Capabilities)
	card.Roles, card.AllowFrom = slices.Clone(c.cfg.Roles), slices.Clone(c.cfg.AllowFrom)
	card.MaxConcurrentTasks = c.cfg.MaxConcurrentTasks
	card.PID, card.Host = os.Getpid(), hostname()
}

// heartbeatLoop renews the heartbeat at every tick of t (see beat).
func (c *Channel) heartbeatLoop(ctx context.Context, t clock.Ticker) {
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			if err := c.beat(ctx); err != nil && ctx.Err() == nil {
				c.Logger().Warn("heartbeat failed", "err", err)
			}
		}
	}
}

// syncCard writes the current task list, the status that follows from it
// and a fresh heartbeat. It holds c.mu throughout, as Stop does while it
// marks the agent offline, so that a task ending during Stop can neither
// revive the card afterwards nor use a store Stop has closed.
func (c *Channel) syncCard(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running {
		return nil // stopped: the card says offline
	}
	tasks := c.active.IDs()
	now := envelope.NewTime(c.clk.Now())
	_, err := c.backend.UpdateCard(ctx, c.cfg.AgentID, func(card *envelope.Card) {
		if card.AgentID == "" || card.RegisteredAt.IsZero() {
			c.fillIdentity(card, now)
		}
		card.CurrentTasks, card.Status, card.LastHeartbeat = tasks, statusOf(tasks), now
	})
	return err
}

// cardChanged writes the new task list to the card at once.
func (c *Channel) cardChanged(ctx context.Context) {
	if err := c.syncCard(ctx); err != nil {
		c.Logger().Warn("update card", "err", err)
	}
}

// markOffline records a clean stop on the card.
func (c *Channel) markOffline(ctx context.Context) error {
	_, err := c.backend.UpdateCard(ctx, c.cfg.AgentID, func(card *envelope.Card) {
		card.Status = envelope.StatusOffline
		card.CurrentTasks = []string{}
		card.LastHeartbeat = envelope.NewTime(c.clk.Now())
	})
	if err != nil {
		return fmt.Errorf("mark %q offline: %w", c.cfg.AgentID, err)
	}
	return nil
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}
