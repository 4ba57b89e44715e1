package mailboxtools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-dev/switchboard/agent"
)

// ListAgents is the list_agents tool: the online agents' cards as a JSON
// array of {id, description, capabilities, status, free_slots, you}.
type ListAgents struct{ mb Mailbox }

// AgentInfo is one entry of list_agents' result.
type AgentInfo struct {
	ID           string   `json:"id"`
	Description  string   `json:"description,omitempty"`
	Capabilities []string `json:"capabilities"`
	Status       string   `json:"status"`
	FreeSlots    int      `json:"free_slots"`
	// You marks this agent's own card.
	You bool `json:"you,omitempty"`
}

// Name implements agentloop.Tool.
func (t *ListAgents) Name() string { return "list_agents" }

// Spec implements agentloop.Tool.
func (t *ListAgents) Spec() agent.ToolSpec {
	return agent.ToolSpec{
		Name: t.Name(),
		Description: "List the agents online now: their id, description, capabilities, status " +
			"(idle or busy) and free task slots. Use it before delegating.",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{}},
	}
}

// Execute implements agentloop.Tool.
func (t *ListAgents) Execute(ctx context.Context, _ agent.Call) (string, error) {
	agents, err := t.mb.Agents(ctx, true)
	if err != nil {
		return "", fmt.Errorf("read the agent registry: %w", err)
	}
	out := make([]AgentInfo, 0, len(agents))
	for _, a := range agents {
		caps := a.Capabilities
		if caps == nil {
			caps = []string{}
		}
		out = append(out, AgentInfo{ID: a.AgentID, Description: a.Description, Capabilities: caps,
			Status: string(a.Effective), FreeSlots: a.FreeSlots(), You: a.AgentID == t.mb.AgentID()})
	}
	data, err := json.Marshal(out)
	if err != nil {
		return "", err
	}
	return string(data), nil
}
