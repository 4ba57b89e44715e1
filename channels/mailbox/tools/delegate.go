package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// DelegateArgs are the arguments of delegate_task.
type DelegateArgs struct {
	To              string         `json:"to,omitempty" jsonschema:"the agent id (or give capability)"`
	Capability      string         `json:"capability,omitempty" jsonschema:"a capability the agent must offer (or give to)"`
	Task            string         `json:"task" jsonschema:"the work to do, in plain words"`
	Data            map[string]any `json:"data,omitempty" jsonschema:"optional structured input of the task"`
	DeadlineSeconds float64        `json:"deadline_seconds,omitempty" jsonschema:"optional: seconds until the task must be done (at most a year: 31536000)"`
}

// DelegateTask is the delegate_task tool: it sends a task to an agent, or
// to the least loaded online agent offering a capability (offered to the
// next holder when it is not taken up). Delegated in a loop's turn, the
// task's callback is the turn's conversation, so its updates come back
// there, and it carries the turn's budget (Caller.Budget); an MCP
// client's task reports to its inbox. A model reads "delegated task <task
// id> to <agent>; ..."; an MCP client gets a Sent.
var DelegateTask = Tool[DelegateArgs]{
	Name: "delegate_task",
	Description: "Hand a task to another agent, named by id (to) or chosen by a capability it offers. " +
		"The agent accepts or rejects it; its updates and its result come back to you later: to the " +
		"conversation you delegated it from, or to your inbox as task_update messages.",
	Use: "hand a task to another agent, by id or by a capability it offers; its result comes back to the " +
		"conversation you delegated it from, and you should then tell the user",
	Run: delegateTask,
}

func delegateTask(ctx context.Context, c Caller, in DelegateArgs) (_ Result, err error) {
	in.To, in.Capability = strings.TrimSpace(in.To), strings.TrimSpace(in.Capability)
	switch {
	case strings.TrimSpace(in.Task) == "":
		return Result{}, errors.New("task is empty: say what the agent should do")
	case in.To == "" && in.Capability == "":
		return Result{}, errors.New("give the agent id (to) or a capability")
	case in.To != "" && in.Capability != "":
		return Result{}, errors.New("give either to or capability, not both")
	}
	wait, err := waitOf("deadline_seconds", in.DeadlineSeconds)
	if err != nil {
		return Result{}, err
	}
	var budget *envelope.Budget
	sent := "" // the id of the task sent, for settle
	if c.Budget != nil {
		b, settle, err := c.Budget(c.Turn)
		if err != nil {
			return Result{}, fmt.Errorf("%w; the task is not delegated", err)
		}
		budget = b
		defer func() { settle(sent) }()
	}
	target, err := c.delegate(ctx, in)
	if err != nil {
		return Result{}, err
	}
	req := route.Request{To: target.AgentID, Type: envelope.TypeTask, Text: in.Task, Parts: dataParts(in.Data),
		Callback: c.callback(), Parent: c.parent(), Tree: c.tree(), Budget: budget}
	if in.Capability != "" {
		req.Via = "any:" + in.Capability // offered to another holder if it is not taken up
	}
	if wait > 0 {
		req.Deadline = c.now().Add(wait)
	}
	msg, err := c.Mailbox.Post(ctx, req)
	if err != nil {
		return Result{}, sendError(err)
	}
	sent = msg.Task.ID
	return Result{
		Text: fmt.Sprintf("delegated task %s to %s; its updates will come back to this conversation%s",
			msg.Task.ID, msg.To, offlineNote(target)),
		Data: Sent{MessageID: msg.ID, TaskID: msg.Task.ID, To: []string{msg.To}, ThreadID: msg.ThreadID},
	}, nil
}

// delegate resolves the agent a task goes to.
func (c Caller) delegate(ctx context.Context, in DelegateArgs) (view.Agent, error) {
	if in.To != "" {
		return c.recipient(ctx, in.To)
	}
	a, err := c.Mailbox.PickByCapability(ctx, in.Capability)
	if errors.Is(err, route.ErrNoAgent) {
		return view.Agent{}, fmt.Errorf("no online agent offers the capability %q (call list_agents to see who offers what)", in.Capability)
	}
	return a, err
}
