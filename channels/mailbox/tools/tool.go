package tools

import (
	"context"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// Mailbox is what the tools use of the mailbox channel;
// *mailbox.Channel implements it.
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
	// Attach stores the file at path (relative to the agent's workspace
	// unless absolute) in the artifact store and returns the file part
	// that sends it.
	Attach(ctx context.Context, path string) (envelope.Part, error)
	// FetchArtifact writes a received file part's bytes into the agent's
	// workspace, verified against its digest, and returns the file's path.
	FetchArtifact(ctx context.Context, p envelope.Part) (string, error)
	// Reservations are the file reservations of the agent's store.
	Reservations() (*store.Reservations, error)
	// DecideEscalation decides an escalation that asks this agent (its
	// Action, Agent and Reason; who and when are the mailbox's).
	DecideEscalation(ctx context.Context, id string, d store.EscalationDecision) (store.Escalation, error)
}

// Caller is who calls a tool: what differs between a model in the agent
// loop and an MCP client is said here, not in the tools.
type Caller struct {
	// Mailbox is the calling agent's mailbox channel.
	Mailbox Mailbox
	// Turn is the agent loop's turn the call is made in (nil for an MCP
	// client). The message it handles, when another agent sent it, is the
	// one reply answers unless a message_id names another, and the one
	// send_message and delegate_task continue (its thread, trace and task
	// tree); its conversation is where a delegated task's updates come
	// back (the task's callback).
	Turn *agent.Turn
	// Handed returns the details of a message handed to the caller, by
	// id: the messages reply may name (an MCP client's check_inbox). Nil:
	// only the turn's own message.
	Handed func(id string) (meta.Meta, bool)
	// KnownOnly writes only to registered agents: an id that names none
	// (a model's guess) is refused with the list of those known, and so
	// is the agent itself. Without it, as on the command line, a message
	// may wait for an agent that has not registered yet.
	KnownOnly bool
	// OnlineOnly makes list_agents list only the agents online, whatever
	// its arguments (what a model delegates to).
	OnlineOnly bool
	// Budget returns the budget a task delegated in turn t carries (nil:
	// none), set aside for it, and settle, which delegate_task calls once
	// with the new task's id when it was sent, or with "" when nothing was
	// sent; or an error when the turn's own budget is spent. Nil: tasks
	// carry the budget of the task being handled, if any.
	Budget func(t *agent.Turn) (b *envelope.Budget, settle func(taskID string), err error)
	// Now is the clock of deadlines and due times (default time.Now).
	Now func() time.Time
}

// now is the caller's clock.
func (c Caller) now() time.Time {
	if c.Now == nil {
		return time.Now()
	}
	return c.Now()
}

// Result is what a tool call did, for each kind of caller: Text is what a
// model in the agent loop reads (a sentence, or compact JSON); Data is
// what an MCP client gets, as indented JSON (Text when nil). Notice, when
// set, says that the call did all that was asked of it and what to tell
// the person (agent.Turn.Conclude): a task handed over.
type Result struct {
	Text   string
	Data   any
	Notice *agent.Notice
}

// Tool is one mailbox tool over arguments In (a struct: its JSON schema
// is the tool's input schema).
type Tool[In any] struct {
	// Name is the tool's name, the same for every caller.
	Name string
	// Description tells the caller what the tool does.
	Description string
	// Use says in a few words what the tool is for, in the identity
	// section of an agent's system prompt.
	Use string
	// Run does the work for caller c.
	Run func(ctx context.Context, c Caller, in In) (Result, error)
}

// Agent returns t as a tool of the agent loop, called as c in the turn
// of each call: its result is Result.Text.
func (t Tool[In]) Agent(c Caller) agent.Tool {
	run := func(ctx context.Context, call agent.Call, in In) (string, error) {
		c := c
		c.Turn = call.Turn
		res, err := t.Run(ctx, c, in)
		if err == nil && res.Notice != nil {
			call.Turn.Conclude(call.ID, *res.Notice)
		}
		return res.Text, err
	}
	return introduced{Tool: agent.NewTool(t.Name, t.Description, run), use: t.Use}
}

// introduced is a loop tool with its Use (agent.Introduced).
type introduced struct {
	agent.Tool
	use string
}

// Use implements agent.Introduced.
func (t introduced) Use() string { return t.use }

// Loop returns the tools an agent loop offers its model, called as c:
// list_agents, delegate_task, send_message, reply, read_artifact,
// reserve_files, release_files, file_reservations and answer_escalation,
// in that order.
func Loop(c Caller) []agent.Tool {
	return []agent.Tool{ListAgents.Agent(c), DelegateTask.Agent(c), SendMessage.Agent(c), Reply.Agent(c),
		ReadArtifact.Agent(c), ReserveFiles.Agent(c), ReleaseFiles.Agent(c), FileReservations.Agent(c),
		AnswerEscalation.Agent(c)}
}
