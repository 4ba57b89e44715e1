package mailbox

import (
	"context"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/clock"
)

// staleLoop marks offline, in the registry, at every tick of t, the cards
// of the other agents whose heartbeat is older than offlineAfter and that
// still say idle or busy: an agent that crashed could not say so itself,
// and nanobot's readers trust a card's status, not its heartbeat. The
// agents of a store that shares duties (store.CanTakeTurns) take turns at
// it, one pass per half of offlineAfter for all of them: a pass reads
// every card, and a thousand agents each reading a thousand cards would
// keep a machine busy.
func (c *Channel) staleLoop(ctx context.Context, t clock.Ticker) {
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			c.markStale(ctx)
		}
	}
}

// staleDuty names the duty of marking stale cards offline.
const staleDuty = "mark-stale"

// markStale does one pass of staleLoop, when it is this agent's turn. Each change is a compare and set
// under the registry's lock: a card whose heartbeat moved since it was read
// (its agent is back), or that says offline already, is left as it is. A
// live agent that lost the race to such a write finds its card offline at
// its next heartbeat and writes it back.
func (c *Channel) markStale(ctx context.Context) {
	turn, err := c.backend.TakeTurn(ctx, staleDuty, c.clk.Now(), seconds(c.cfg.OfflineAfter)/2)
	if err != nil {
		// Sharing failed (an agent not allowed to write the turn's key,
		// say): do the pass, as every agent did before duties were shared.
		c.Logger().Debug("stale cards checked without taking turns", "err", err)
		turn = true
	}
	if !turn {
		return
	}
	cards, err := c.backend.Cards(ctx)
	if err != nil {
		if ctx.Err() == nil {
			c.Logger().Warn("stale cards not checked", "err", err)
		}
		return
	}
	now, limit := c.clk.Now(), seconds(c.cfg.OfflineAfter)
	for _, card := range cards {
		seen := card.LastHeartbeat
		if card.AgentID == c.cfg.AgentID || card.Status == envelope.StatusOffline || now.Sub(seen.Time) <= limit {
			continue
		}
		changed := false
		_, err := c.backend.UpdateCard(ctx, card.AgentID, func(cur *envelope.Card) {
			if cur.RegisteredAt.IsZero() || cur.Status == envelope.StatusOffline || cur.LastHeartbeat.After(seen.Time) {
				return // gone, offline already, or beating again
			}
			cur.Status, changed = envelope.StatusOffline, true
		})
		switch {
		case err != nil && ctx.Err() == nil:
			c.Logger().Warn("stale card not marked offline", "agent", card.AgentID, "err", err)
		case changed:
			c.Logger().Info("marked offline: no heartbeat within offlineAfter", "agent", card.AgentID,
				"last_heartbeat", seen.Time)
		}
	}
}
