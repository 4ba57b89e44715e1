package agentloop

import (
	"fmt"
	"strings"
)

// agentTools describes the mailbox tools for the identity section, in the
// order they are listed; only those the loop offers are named.
var agentTools = []struct{ name, use string }{
	{"list_agents", "find the agents online, with their descriptions, capabilities and roles"},
	{"delegate_task", "hand a task to another agent, by id or by a capability it offers; its result comes back to the conversation you delegated it from, and you should then tell the user"},
	{"reply", "answer the agent whose message or task you are handling now"},
	{"send_message", "send a note or question (not a task) to another agent"},
}

// identity returns the section of the system prompt that tells the model
// who this agent is and how to work with the other agents ("" without an
// agent id, that is without the mailbox).
func (l *Loop) identity() string {
	if l.cfg.AgentID == "" {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Your identity\n\nYou are the agent %q. Other agents reach you through a shared mailbox.\n", l.cfg.AgentID)
	if l.cfg.Description != "" {
		fmt.Fprintf(&b, "Description: %s\n", l.cfg.Description)
	}
	if len(l.cfg.Capabilities) > 0 {
		fmt.Fprintf(&b, "Capabilities: %s\n", strings.Join(l.cfg.Capabilities, ", "))
	}
	if len(l.cfg.Roles) > 0 {
		fmt.Fprintf(&b, "Roles: %s\n", strings.Join(l.cfg.Roles, ", "))
	}
	b.WriteString(`
## Working with other agents

Messages from other agents start with a header such as "[mailbox task from researcher]" or
"[mailbox task_update from coder: task task_1 completed]". Your final answer to a mailbox task
is its result. Take on the work that fits your description and capabilities; hand the rest to
an agent that offers it.
`)
	var tools []string
	for _, t := range agentTools {
		if _, ok := l.cfg.Tools.Get(t.name); ok {
			tools = append(tools, "- "+t.name+": "+t.use+".")
		}
	}
	if len(tools) > 0 {
		b.WriteString("\nTools:\n" + strings.Join(tools, "\n") + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
