package mailbox

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// beat renews the agent's heartbeat. A store that can renew a heartbeat
// alone (store.CanHeartbeat) does so, and the whole card is written again
// only when it no longer says what it should: lost (another writer
// dropped it), marked offline, other tasks. Other stores rewrite the card
// (tasks, status and heartbeat) at every beat, which also heals it.
func (c *Channel) beat(ctx context.Context) error {
	if c.renew(ctx) {
		return nil
	}
	return c.syncCard(ctx)
}

// renew renews the heartbeat through the store's Heartbeat and reports
// whether the card is as it should be; false when the store cannot renew
// a heartbeat alone or the heartbeat failed (syncCard then reports the store's
// error, or repairs what made it fail, a corrupt registry say). It holds
// c.mu, as syncCard does, so that no heartbeat follows Stop's.
func (c *Channel) renew(ctx context.Context) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running {
		return true // stopped: the card says offline
	}
	tasks := c.active.IDs()
	card, err := c.backend.Heartbeat(ctx, c.cfg.AgentID, c.clk.Now(), c.registryMaxAge())
	if err != nil {
		if !errors.Is(err, store.ErrUnknownAgent) && !errors.Is(err, store.ErrNotSupported) && ctx.Err() == nil {
			c.Logger().Warn("heartbeat failed; rewriting the card", "err", err)
		}
		return false
	}
	cardTasks := slices.Sorted(slices.Values(card.CurrentTasks))
	return card.AgentID == c.cfg.AgentID && !card.RegisteredAt.IsZero() &&
		card.Status == statusOf(tasks) && slices.Equal(cardTasks, tasks)
}

// registryMaxAge is how old the heartbeat in a store's shared copy of the
// card may grow before a heartbeat renews it: half of offlineAfter, less
// when heartbeats are so rare that a reader of that copy could otherwise
// see one older than offlineAfter (a beat finds it stale up to one
// interval late, and the renewal carries the agents' last beats, up to one
// interval old).
func (c *Channel) registryMaxAge() time.Duration {
	offline, every := seconds(c.cfg.OfflineAfter), seconds(c.cfg.HeartbeatInterval)
	return max(0, min(offline/2, offline-2*every))
}

// statusOf is the status that follows from the current tasks.
func statusOf(tasks []string) envelope.Status {
	if len(tasks) > 0 {
		return envelope.StatusBusy
	}
	return envelope.StatusIdle
}
