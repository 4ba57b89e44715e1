package agentloop

import (
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/agent"
)

// identity returns the section of the system prompt that tells the model
// who this agent is and how to work with the other agents, with the
// tools offered that introduce themselves (agent.Introduced); "" without
// an agent id, that is without a channel that gives the agent one (see
// IdentityChannel).
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
	for _, name := range l.cfg.Tools.Names() {
		t, _ := l.cfg.Tools.Get(name)
		if in, ok := t.(agent.Introduced); ok && in.Use() != "" {
			tools = append(tools, "- "+name+": "+in.Use()+".")
		}
	}
	if len(tools) > 0 {
		b.WriteString("\nTools:\n" + strings.Join(tools, "\n") + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
