package mailbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// This file is the agent's presence: its card (registered at Start, kept
// in step with its tasks, marked offline at Stop), the heartbeat, the
// cards of crashed agents marked offline, and the directory of agents
// read from the cards.

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
	c.fillKey(card)
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
	now := c.clk.Now()
	card, err := c.backend.Heartbeat(ctx, c.cfg.AgentID, now, c.registryMaxAge())
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		// A store too slow to answer (a server a thousand agents start on)
		// is not helped by a rewrite of the card: the next beat tries again,
		// and the card and presence stay fresh for offlineAfter.
		c.Logger().Warn("heartbeat not answered in time; trying again at the next one", "err", err)
		return true
	}
	if err != nil {
		if !errors.Is(err, store.ErrUnknownAgent) && !errors.Is(err, store.ErrNotSupported) && ctx.Err() == nil {
			c.Logger().Warn("heartbeat failed; rewriting the card", "err", err)
		}
		return false
	}
	cardTasks := slices.Sorted(slices.Values(card.CurrentTasks))
	return card.AgentID == c.cfg.AgentID && !card.RegisteredAt.IsZero() && card.PublicKey == c.key.Public &&
		card.Status == c.statusFor(tasks) && slices.Equal(cardTasks, tasks) &&
		envelope.HeartbeatFresh(card.LastHeartbeat.Time, now, seconds(c.cfg.OfflineAfter)) // not from the future
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
		if card.AgentID == "" || card.RegisteredAt.IsZero() || card.PublicKey != c.key.Public {
			c.fillIdentity(card, now)
		}
		card.CurrentTasks, card.Status, card.LastHeartbeat = tasks, c.statusFor(tasks), now
	})
	return err
}

// cardChanged writes the new task list to the card at once (and ends a
// drain once no task is left: drain.go).
func (c *Channel) cardChanged(ctx context.Context) {
	if err := c.syncCard(ctx); err != nil {
		c.Logger().Warn("update card", "err", err)
	}
	c.drainStep(ctx)
}

// How long a stop waits for its offline mark to reach the registry, on a
// store that keeps the mark queued for the registry's next writer when
// that is not long enough (store.CanLeaveCards: the folder store). A
// thousand agents stopped at once on one folder root share a few rewrites
// of the registry, which take seconds on a busy machine. The mark may
// take the stop's deadline but offlineReserve, which is left for closing
// the inbox (recv's stop has 10 s, so the mark up to 9), or offlineWaitMax
// on a stop without a deadline. A merge the stop has begun is finished.
// On other stores the mark has the stop's whole deadline.
const (
	offlineReserve = time.Second
	offlineWaitMax = 10 * time.Second
)

// markOffline records a clean stop on the card. When the registry is too
// busy to take it in time (see offlineReserve), a store that queues card
// updates keeps it queued for the registry's next writer, and the stop
// does not fail for that.
func (c *Channel) markOffline(ctx context.Context) error {
	if c.backend.Has(store.CanLeaveCards) {
		wait := offlineWaitMax
		if deadline, ok := ctx.Deadline(); ok {
			left := time.Until(deadline)
			wait = max(left-offlineReserve, left/2)
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	visible, err := c.backend.LeaveCard(ctx, c.cfg.AgentID, func(card *envelope.Card) {
		card.Status = envelope.StatusOffline
		card.CurrentTasks = []string{}
		card.LastHeartbeat = envelope.NewTime(c.clk.Now())
	})
	if err != nil {
		return fmt.Errorf("mark %q offline: %w", c.cfg.AgentID, err)
	}
	if !visible {
		c.Logger().Info("the registry is busy: the offline mark waits in its queue for the registry's next writer")
	}
	return nil
}

// statusOf is the status that follows from the current tasks.
func statusOf(tasks []string) envelope.Status {
	if len(tasks) > 0 {
		return envelope.StatusBusy
	}
	return envelope.StatusIdle
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}

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

// markStale does one pass of staleLoop, when it is this agent's turn.
// Each change is a compare and set under the registry's lock: a card whose
// heartbeat moved since it was read (its agent is back), or that says
// offline already, is left as it is. A live agent that lost the race to
// such a write finds its card offline at its next heartbeat and writes it
// back.
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
		if card.AgentID == c.cfg.AgentID || card.Status == envelope.StatusOffline || envelope.HeartbeatFresh(seen.Time, now, limit) {
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

// Agents lists the registered agents (only online ones with onlineOnly).
func (c *Channel) Agents(ctx context.Context, onlineOnly bool) ([]view.Agent, error) {
	be := c.Backend()
	if be == nil {
		return nil, ErrNotRunning
	}
	return view.ListAgents(ctx, be, c.clk.Now(), seconds(c.cfg.OfflineAfter), onlineOnly)
}

// FindByCapability returns the online agents other than this one that
// offer capability, those with the most free task slots first.
func (c *Channel) FindByCapability(ctx context.Context, capability string) ([]view.Agent, error) {
	agents, err := c.Agents(ctx, true)
	if err != nil {
		return nil, err
	}
	return view.Holders(agents, c.cfg.AgentID, view.ByCapability(capability)), nil
}

// FindByRole returns the online agents other than this one that have
// role, those with the most free task slots first.
func (c *Channel) FindByRole(ctx context.Context, role string) ([]view.Agent, error) {
	agents, err := c.Agents(ctx, true)
	if err != nil {
		return nil, err
	}
	return view.Holders(agents, c.cfg.AgentID, view.ByRole(role)), nil
}

// PickByCapability returns the least loaded online agent offering
// capability, or an error wrapping route.ErrNoAgent.
func (c *Channel) PickByCapability(ctx context.Context, capability string) (view.Agent, error) {
	agents, err := c.FindByCapability(ctx, capability)
	if err != nil {
		return view.Agent{}, err
	}
	if len(agents) == 0 {
		return view.Agent{}, fmt.Errorf("capability %q: %w offers it", capability, route.ErrNoAgent)
	}
	return agents[0], nil
}
