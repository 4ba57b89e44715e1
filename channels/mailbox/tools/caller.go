package tools

import (
	"context"
	"fmt"
	"slices"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// inbound is the message the turn handles (the zero value without one).
func (c Caller) inbound() bus.InboundMessage {
	if c.Turn == nil {
		return bus.InboundMessage{}
	}
	return c.Turn.Inbound
}

// parent returns the mailbox message the turn handles, when it is one
// from another agent (not an update routed to the user's conversation).
func (c Caller) parent() *meta.Meta {
	mt, ok := meta.Of(c.inbound().Metadata)
	if !ok || mt.Routed() {
		return nil
	}
	return mt
}

// tree returns the task tree of a turn that handles an update routed back
// to the conversation a task was delegated from: work delegated there
// stays in the tree of the task being worked on (meta.CheckTaskPath).
func (c Caller) tree() *meta.Tree {
	mt, ok := meta.Of(c.inbound().Metadata)
	if !ok || !mt.Routed() {
		return nil
	}
	return mt.Tree
}

// callback is the conversation a task delegated now reports back to: the
// turn's (nil for an MCP client, whose inbox gets the updates).
func (c Caller) callback() *envelope.Callback {
	if c.Turn == nil {
		return nil
	}
	in := c.inbound()
	return &envelope.Callback{Channel: in.Channel, ChatID: in.ChatID, SessionID: in.SessionKey()}
}

// recipient returns the card of agent id, the recipient of a message or a
// task: with KnownOnly a readable error names the agents known when id is
// none of them; without it an agent not registered is no error (its card
// is then empty but for the id).
func (c Caller) recipient(ctx context.Context, id string) (view.Agent, error) {
	if !c.KnownOnly {
		return view.Agent{Card: envelope.Card{AgentID: id}}, nil
	}
	mb := c.Mailbox
	if id == mb.AgentID() {
		return view.Agent{}, fmt.Errorf("%q is this agent itself; do the work here instead", id)
	}
	if err := envelope.ValidateAgentID(id); err != nil {
		return view.Agent{}, err
	}
	agents, err := mb.Agents(ctx, false)
	if err != nil {
		return view.Agent{}, fmt.Errorf("read the agent registry: %w", err)
	}
	var known []string
	for _, a := range agents {
		if a.AgentID == id {
			return a, nil
		}
		if a.AgentID != mb.AgentID() {
			known = append(known, a.AgentID)
		}
	}
	slices.Sort(known)
	return view.Agent{}, fmt.Errorf("unknown agent %q (known agents: %v; call list_agents)", id, known)
}

// isGroup reports whether to names a group rather than one agent: a
// target of kind all, cap, role, any or pattern, or a bare name that is
// no registered agent but a capability or role some other agent has.
func (c Caller) isGroup(ctx context.Context, to string) (bool, error) {
	target, err := route.ParseTarget(to)
	if err != nil {
		return false, err
	}
	switch target.Kind {
	case route.TargetAgent:
		return false, nil
	case route.TargetName:
	default:
		return true, nil
	}
	agents, err := c.Mailbox.Agents(ctx, false)
	if err != nil {
		return false, fmt.Errorf("read the agent registry: %w", err)
	}
	if slices.ContainsFunc(agents, func(a view.Agent) bool { return a.AgentID == to }) {
		return false, nil
	}
	self := c.Mailbox.AgentID()
	return slices.ContainsFunc(agents, func(a view.Agent) bool {
		return a.AgentID != self && (a.HasCapability(to) || a.HasRole(to))
	}), nil
}

// offlineNote says that a message waits for an offline agent.
func offlineNote(a view.Agent) string {
	if a.Effective == envelope.StatusOffline {
		return fmt.Sprintf(" (%s is offline now: it waits in its inbox until %s comes back)", a.AgentID, a.AgentID)
	}
	return ""
}

// dataParts is the data part of a message with structured data d, if any.
func dataParts(d map[string]any) []envelope.Part {
	if d == nil {
		return nil
	}
	return []envelope.Part{envelope.DataPart(d)}
}

// Sent is what send_message, delegate_task and reply tell an MCP client.
type Sent struct {
	MessageID string   `json:"message_id,omitempty"`
	TaskID    string   `json:"task_id,omitempty"`
	To        []string `json:"to"`
	ThreadID  string   `json:"thread_id,omitempty"`
	Skipped   []string `json:"skipped,omitempty"`
}
