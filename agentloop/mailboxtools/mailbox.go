package mailboxtools

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// Mailbox is what the tools use of the mailbox channel; *mailbox.Channel
// implements it.
type Mailbox interface {
	// AgentID is this agent's id.
	AgentID() string
	// Agents lists the registered agents (online ones only with onlineOnly).
	Agents(ctx context.Context, onlineOnly bool) ([]view.Agent, error)
	// PickByCapability returns the least loaded online agent offering a
	// capability, or an error wrapping route.ErrNoAgent.
	PickByCapability(ctx context.Context, capability string) (view.Agent, error)
	// Post sends one message from this agent.
	Post(ctx context.Context, req route.Request) (*envelope.Message, error)
	// PostTo sends a copy of req to every agent a group target names (all,
	// cap:NAME, role:NAME, any:NAME, a pattern), under the loop rules per
	// recipient.
	PostTo(ctx context.Context, target string, req route.Request) (route.Fanout, error)
	// FinishTask ends (or, for a non-terminal state, reports progress on)
	// a task this agent works on.
	FinishTask(ctx context.Context, taskID string, state envelope.TaskState, text, reason string, parts []envelope.Part) (*envelope.Message, error)
}

// Options are the extras of New.
type Options struct {
	// Now is the clock for task deadlines (default time.Now).
	Now func() time.Time
	// Budget returns the budget a task delegated during a turn carries
	// (nil: none), set aside for it, and settle, which the tool calls once
	// with the new task's id when it was sent, or with "" when nothing was
	// sent; or an error when the turn's own budget is spent (see
	// budget.Keeper.Hand). Nil: tasks carry the budget of the task being
	// handled, if any.
	Budget func(*agent.Turn) (b *envelope.Budget, settle func(taskID string), err error)
}

// New returns the four mailbox tools over mb, in the order list_agents,
// delegate_task, send_message, reply.
func New(mb Mailbox, opts Options) []agent.Tool {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return []agent.Tool{
		&ListAgents{mb: mb},
		&DelegateTask{mb: mb, now: opts.Now, budget: opts.Budget},
		&SendMessage{mb: mb},
		&Reply{mb: mb},
	}
}

// lookup returns the card of agent id, or a readable error naming the
// known agents.
func lookup(ctx context.Context, mb Mailbox, id string) (view.Agent, error) {
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

// parentOf returns the mailbox message the turn handles, when it is one
// from another agent (not an update routed to the user's conversation).
func parentOf(call agent.Call) *meta.Meta {
	mt, ok := meta.Of(call.Inbound().Metadata)
	if !ok || mt.Routed() {
		return nil
	}
	return mt
}

// routedTree returns the task tree of a turn that handles an update routed
// back to the conversation a task was delegated from: work delegated there
// stays in the tree of the task being worked on (route.CheckTaskPath).
func routedTree(call agent.Call) *meta.Tree {
	mt, ok := meta.Of(call.Inbound().Metadata)
	if !ok || !mt.Routed() {
		return nil
	}
	return mt.Tree
}

// offlineNote says that a message waits for an offline agent.
func offlineNote(a view.Agent) string {
	if a.Effective == envelope.StatusOffline {
		return fmt.Sprintf(" (%s is offline now: it waits in its inbox until %s comes back)", a.AgentID, a.AgentID)
	}
	return ""
}
