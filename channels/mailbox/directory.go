package mailbox

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
)

// Agent is a registry card with the status computed from its heartbeat.
type Agent struct {
	envelope.Card
	// Effective is the status others must assume (offline once the
	// heartbeat is stale, whatever the card says).
	Effective envelope.Status `json:"effective_status"`
}

// ListAgents reads every card from reg and computes each status at now.
// With onlineOnly, offline agents are left out.
func ListAgents(ctx context.Context, reg store.Registry, now time.Time, offlineAfter time.Duration, onlineOnly bool) ([]Agent, error) {
	cards, err := reg.Cards(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Agent, 0, len(cards))
	for _, card := range cards {
		a := Agent{Card: card, Effective: card.EffectiveStatus(now, offlineAfter)}
		if onlineOnly && a.Effective == envelope.StatusOffline {
			continue
		}
		out = append(out, a)
	}
	return out, nil
}

// Agents lists the registered agents (only online ones with onlineOnly).
func (c *Channel) Agents(ctx context.Context, onlineOnly bool) ([]Agent, error) {
	be := c.Backend()
	if be == nil {
		return nil, ErrNotRunning
	}
	return ListAgents(ctx, be, c.now(), seconds(c.cfg.OfflineAfter), onlineOnly)
}

// FindByCapability returns the online agents other than this one that
// offer capability, those with the most free task slots first.
func (c *Channel) FindByCapability(ctx context.Context, capability string) ([]Agent, error) {
	agents, err := c.Agents(ctx, true)
	if err != nil {
		return nil, err
	}
	agents = slices.DeleteFunc(agents, func(a Agent) bool {
		return a.AgentID == c.cfg.AgentID || !a.HasCapability(capability)
	})
	slices.SortStableFunc(agents, func(a, b Agent) int {
		return cmp.Compare(b.FreeSlots(), a.FreeSlots())
	})
	return agents, nil
}

// PickByCapability returns the least loaded online agent offering
// capability, or an error wrapping ErrNoAgent.
func (c *Channel) PickByCapability(ctx context.Context, capability string) (Agent, error) {
	agents, err := c.FindByCapability(ctx, capability)
	if err != nil {
		return Agent{}, err
	}
	if len(agents) == 0 {
		return Agent{}, fmt.Errorf("capability %q: %w offers it", capability, ErrNoAgent)
	}
	return agents[0], nil
}
