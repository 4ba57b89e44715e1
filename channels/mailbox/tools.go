package mailbox

import (
	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/channels/mailbox/tools"
)

// The channel is the mailbox the tools use.
var _ tools.Mailbox = (*Channel)(nil)

// Tools returns the mailbox tools the agent loop offers its model
// (agentloop.ToolChannel): list_agents, delegate_task, send_message and
// reply of package channels/mailbox/tools, called as a model calls them:
// they write to registered agents only, list the agents online, and a
// task delegated in a turn carries that turn's budget (see Hooks).
func (c *Channel) Tools() []agent.Tool {
	return tools.Loop(tools.Caller{Mailbox: c, KnownOnly: true, OnlineOnly: true, Budget: c.keeper().Hand, Now: c.clk.Now})
}
