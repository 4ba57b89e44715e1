package agentloop

import (
	"context"

	"github.com/switchboard-dev/switchboard/agent"
	"github.com/switchboard-dev/switchboard/bus"
)

// What the loop takes from the channels it serves, beyond their messages.
// A channel offers it by implementing one of these small interfaces,
// whose types come from bus and agent only, so that it need not import
// the loop; host finds them on the channels it runs (by type assertion)
// and wires them into the Config and the Loop. The mailbox channel
// implements all of them.

// ToolChannel is a channel that offers the agent tools (the mailbox:
// list_agents, delegate_task, send_message, reply): they join
// Config.Tools.
type ToolChannel interface {
	Tools() []agent.Tool
}

// HookChannel is a channel whose hooks run in front of the others
// (Config.Hooks): the mailbox's budget keeper, which refuses a provider
// call past a task's budget.
type HookChannel interface {
	Hooks() []agent.Hook
}

// ApprovalChannel is a channel that keeps the agent's approvals where
// other processes list and decide them (ApprovalConfig.Book; the
// mailbox: its store, with the audit log).
type ApprovalChannel interface {
	ApprovalBook() agent.ApprovalBook
}

// TaskChannel is a channel that delegates tasks to the agent (the
// mailbox): before it accepts one it asks the agent's judgement, which
// host sets to Loop.Judge.
type TaskChannel interface {
	SetJudge(judge func(ctx context.Context, task bus.InboundMessage) (accept bool, reason string))
}

// IdentityChannel is a channel that gives the agent its identity among
// other agents (the mailbox: its card): Config.AgentID, Description,
// Capabilities and Roles.
type IdentityChannel interface {
	Profile() agent.Profile
}

// SetProfile sets the agent's identity (AgentID, Description,
// Capabilities, Roles) to p.
func (c *Config) SetProfile(p agent.Profile) {
	c.AgentID, c.Description, c.Capabilities, c.Roles = p.ID, p.Description, p.Capabilities, p.Roles
}

// AnswerChannel is a channel that asks people questions in their chats
// and takes their answers before the model sees them (the mailbox: a
// person's answer to an escalation, "1" to "4"): TakeAnswer reports
// whether in was such an answer, which it then finished. It joins
// Config.Answers.
type AnswerChannel interface {
	TakeAnswer(ctx context.Context, in bus.InboundMessage) bool
}
