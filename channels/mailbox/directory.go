package mailbox

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

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
