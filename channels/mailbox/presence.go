package mailbox

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// register writes the agent's card: identity from the config, status idle,
// no current tasks, fresh timestamps.
func (c *Channel) register(ctx context.Context) error {
	now := envelope.NewTime(c.now())
	_, err := c.backend.UpdateCard(ctx, c.cfg.AgentID, func(card *envelope.Card) {
		*card = envelope.Card{
			AgentID:            c.cfg.AgentID,
			Description:        c.cfg.Description,
			Capabilities:       slices.Clone(c.cfg.Capabilities),
			Roles:              slices.Clone(c.cfg.Roles),
			Status:             envelope.StatusIdle,
			AllowFrom:          slices.Clone(c.cfg.AllowFrom),
			MaxConcurrentTasks: c.cfg.MaxConcurrentTasks,
			CurrentTasks:       []string{},
			RegisteredAt:       now,
			LastHeartbeat:      now,
			PID:                os.Getpid(),
			Host:               hostname(),
		}
	})
	if err != nil {
		return fmt.Errorf("register agent %q: %w", c.cfg.AgentID, err)
	}
	return nil
}

// heartbeatLoop renews last_heartbeat (and status and current_tasks, which
// also heals a card that another writer clobbered) every heartbeatInterval.
func (c *Channel) heartbeatLoop(ctx context.Context) {
	t := time.NewTicker(seconds(c.cfg.HeartbeatInterval))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := c.syncCard(ctx); err != nil && ctx.Err() == nil {
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
	tasks := c.activeIDsLocked()
	now := envelope.NewTime(c.now())
	_, err := c.backend.UpdateCard(ctx, c.cfg.AgentID, func(card *envelope.Card) {
		if card.AgentID == "" || card.RegisteredAt.IsZero() {
			card.AgentID, card.RegisteredAt = c.cfg.AgentID, now
			card.Description, card.Capabilities = c.cfg.Description, slices.Clone(c.cfg.Capabilities)
			card.Roles, card.AllowFrom = slices.Clone(c.cfg.Roles), slices.Clone(c.cfg.AllowFrom)
			card.MaxConcurrentTasks = c.cfg.MaxConcurrentTasks
			card.PID, card.Host = os.Getpid(), hostname()
		}
		card.CurrentTasks = tasks
		card.Status = envelope.StatusIdle
		if len(tasks) > 0 {
			card.Status = envelope.StatusBusy
		}
		card.LastHeartbeat = now
	})
	return err
}

// markOffline records a clean stop on the card.
func (c *Channel) markOffline(ctx context.Context) error {
	_, err := c.backend.UpdateCard(ctx, c.cfg.AgentID, func(card *envelope.Card) {
		card.Status = envelope.StatusOffline
		card.CurrentTasks = []string{}
		card.LastHeartbeat = envelope.NewTime(c.now())
	})
	if err != nil {
		return fmt.Errorf("mark %q offline: %w", c.cfg.AgentID, err)
	}
	return nil
}

func (c *Channel) activeIDsLocked() []string {
	ids := make([]string, 0, len(c.active))
	for id := range c.active {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
