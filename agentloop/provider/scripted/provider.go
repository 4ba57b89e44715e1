package scripted

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/bus"
)

// Names of the tools the provider calls (see package channels/mailbox/tools).
const (
	toolDelegate   = "delegate_task"
	toolListAgents = "list_agents"
)

// HelpText is the answer to anything the provider does not understand.
const HelpText = `I can sort numbers or words ("sort 5 3 9 1"), count words ("count words in hello world") ` +
	`and compute ("compute (1+2)*3"). I can also hand work to other agents: "ask coder to sort 5 3 9 1", ` +
	`"ask someone who can count to count words in a b c", or ask "who is online".`

// Provider is the scripted provider. The zero value is ready to use.
type Provider struct{}

var (
	_ agent.Provider  = (*Provider)(nil)
	_ agent.TaskJudge = (*Provider)(nil)
)

// New returns a scripted provider.
func New() *Provider { return &Provider{} }

// Chat answers the last message of req (see the package comment).
func (p *Provider) Chat(ctx context.Context, req agent.Request) (*agent.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	resp, err := p.reply(req)
	if resp != nil {
		resp.Model = Model
		resp.Usage = usageOf(req, resp)
	}
	return resp, err
}

// reply answers the last message of req.
func (p *Provider) reply(req agent.Request) (*agent.Response, error) {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		switch m := req.Messages[i]; m.Role {
		case agent.RoleTool:
			return say(afterTools(req.Messages)), nil
		case agent.RoleUser:
			return answer(req, m.Content)
		case agent.RoleAssistant:
			return say(HelpText), nil
		}
	}
	return say(HelpText), nil
}

// JudgeTask accepts a task whose verb maps to one of the agent's
// capabilities (or when the agent lists "*"), and a task that asks to
// pass work on ("ask coder to sort 5 3 9 1").
func (p *Provider) JudgeTask(_ context.Context, task agent.TaskInfo) (bool, string) {
	if parseCommand(task.Text).kind == cmdDelegate {
		return true, "" // work to pass on to another agent
	}
	capability, verb := CapabilityOf(task.Text)
	if slices.Contains(task.Capabilities, "*") ||
		capability != "" && slices.Contains(task.Capabilities, capability) {
		return true, ""
	}
	if verb == "" {
		return false, "no work given"
	}
	return false, "no capability for " + verb
}

// answer handles a user message (or a mailbox note shown as one).
func answer(req agent.Request, text string) (*agent.Response, error) {
	if note, ok := bus.ParseNote(text); ok {
		return answerNote(req, note)
	}
	cmd := parseCommand(text)
	switch cmd.kind {
	case cmdDelegate:
		if !hasTool(req.Tools, toolDelegate) {
			return say("I cannot reach other agents here: the mailbox is not enabled."), nil
		}
		return callTool(req, toolDelegate, cmd.args), nil
	case cmdList:
		if !hasTool(req.Tools, toolListAgents) {
			return say("I cannot see other agents here: the mailbox is not enabled."), nil
		}
		return callTool(req, toolListAgents, map[string]any{}), nil
	}
	res, err := Work(text)
	switch {
	case errors.Is(err, ErrUnknownWork):
		return say(HelpText), nil
	case err != nil:
		return say("I could not do that: " + err.Error()), nil
	}
	return say(res), nil
}

// answerNote handles a message from another agent. Work that fails is an
// *agent.TaskFailure, so that the task fails visibly with the reason.
func answerNote(req agent.Request, n bus.Note) (*agent.Response, error) {
	switch n.Type {
	case "task":
		if cmd := parseCommand(n.Text); cmd.kind == cmdDelegate && hasTool(req.Tools, toolDelegate) {
			return callTool(req, toolDelegate, cmd.args), nil // passed on: a chain of agents
		}
		res, err := Work(n.Text)
		if err != nil {
			return nil, &agent.TaskFailure{Reason: err.Error()}
		}
		return say(res), nil
	case "task_update":
		return say(describeUpdate(n)), nil
	}
	if resp, ok := answerEscalation(req, n.Text); ok {
		return resp, nil
	}
	res, err := Work(n.Text)
	if errors.Is(err, ErrUnknownWork) {
		return say(HelpText), nil
	}
	if err != nil {
		return say("I could not do that: " + err.Error()), nil
	}
	return say(res), nil
}

// describeUpdate tells the user what a task_update says.
func describeUpdate(n bus.Note) string {
	who := n.From
	why := n.Reason
	if why == "" {
		why = n.Text
	}
	switch n.State {
	case "completed":
		if n.Text == "" {
			return who + " finished the task."
		}
		return who + " finished: " + n.Text
	case "accepted":
		return who + " accepted the task and is working on it."
	case "working":
		if n.Text == "" {
			return who + " is working on it."
		}
		return who + " is working on it: " + n.Text
	case "rejected", "failed":
		if why == "" {
			why = "no reason given"
		}
		return who + " could not do it: " + why
	case "canceled":
		if why != "" && why != n.Text {
			return who + "'s task was canceled: " + why
		}
		return who + "'s task was canceled."
	case "pending":
		if why == n.Text {
			why = who + " has not taken it up yet"
		}
		return "task " + n.TaskID + ": " + why + "; " + n.Text
	}
	return fmt.Sprintf("%s sent an update (%s): %s", who, n.State, n.Text)
}

func say(text string) *agent.Response {
	return &agent.Response{Content: text, FinishReason: "stop"}
}

func hasTool(specs []agent.ToolSpec, name string) bool {
	return slices.ContainsFunc(specs, func(s agent.ToolSpec) bool { return s.Name == name })
}

// callTool asks for one tool call, with an id unique within the request.
func callTool(req agent.Request, name string, args map[string]any) *agent.Response {
	n := 1
	for _, m := range req.Messages {
		n += len(m.ToolCalls)
	}
	return &agent.Response{FinishReason: "tool_calls", ToolCalls: []agent.ToolCall{{
		ID: "call_" + strconv.Itoa(n), Name: name, Arguments: mustJSON(args)}}}
}
