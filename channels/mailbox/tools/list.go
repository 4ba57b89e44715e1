package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// ListArgs are the arguments of list_agents.
type ListArgs struct {
	OnlineOnly bool   `json:"online_only,omitempty" jsonschema:"leave out offline agents"`
	Capability string `json:"capability,omitempty" jsonschema:"keep the agents offering this capability"`
}

// AgentInfo is one entry of list_agents' result for a model.
type AgentInfo struct {
	ID           string   `json:"id"`
	Description  string   `json:"description,omitempty"`
	Capabilities []string `json:"capabilities"`
	Status       string   `json:"status"`
	FreeSlots    int      `json:"free_slots"`
	// You marks this agent's own card.
	You bool `json:"you,omitempty"`
}

// ListAgents is the list_agents tool: the agents of the mailbox (online
// only with online_only, or for a caller with OnlineOnly), those offering
// a capability with capability. A model reads them as a JSON array of
// AgentInfo ({id, description, capabilities, status, free_slots, you});
// an MCP client gets their cards (view.Agent).
var ListAgents = Tool[ListArgs]{
	Name: "list_agents",
	Description: "List the agents of the mailbox: their id, description, capabilities, status " +
		"(idle, busy or offline) and free task slots. Use it before delegating.",
	Use: "find the agents online, with their descriptions, capabilities and roles",
	Run: listAgents,
}

func listAgents(ctx context.Context, c Caller, in ListArgs) (Result, error) {
	agents, err := c.Mailbox.Agents(ctx, in.OnlineOnly || c.OnlineOnly)
	if err != nil {
		return Result{}, fmt.Errorf("read the agent registry: %w", err)
	}
	if in.Capability != "" {
		agents = slices.DeleteFunc(agents, func(a view.Agent) bool { return !a.HasCapability(in.Capability) })
	}
	out := make([]AgentInfo, 0, len(agents))
	for _, a := range agents {
		caps := a.Capabilities
		if caps == nil {
			caps = []string{}
		}
		out = append(out, AgentInfo{ID: a.AgentID, Description: a.Description, Capabilities: caps,
			Status: string(a.Effective), FreeSlots: a.FreeSlots(), You: a.AgentID == c.Mailbox.AgentID()})
	}
	data, err := json.Marshal(out)
	if err != nil {
		return Result{}, err
	}
	return Result{Text: string(data), Data: agents}, nil
}
