package view

import (
	"cmp"
	"context"
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

// Holders returns the agents other than self that match and take work
// (not draining), those with the most free task slots first (then by
// id, as listed).
func Holders(agents []Agent, self string, match func(Agent) bool) []Agent {
	out := slices.DeleteFunc(slices.Clone(agents), func(a Agent) bool {
		return a.AgentID == self || !a.TakesWork() || !match(a)
	})
	slices.SortStableFunc(out, func(a, b Agent) int { return cmp.Compare(b.FreeSlots(), a.FreeSlots()) })
	return out
}

// ByCapability matches the agents that offer capability.
func ByCapability(capability string) func(Agent) bool {
	return func(a Agent) bool { return a.HasCapability(capability) }
}

// ByRole matches the agents that have role.
func ByRole(role string) func(Agent) bool {
	return func(a Agent) bool { return a.HasRole(role) }
}
