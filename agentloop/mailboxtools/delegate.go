package mailboxtools

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// DelegateTask is the delegate_task tool: it sends a task to an agent, or
// to the least loaded online agent offering a capability. The task's
// callback is the current conversation, so its updates come back there.
// Its result reads "delegated task <task id> to <agent>; ...".
type DelegateTask struct {
	mb     Mailbox
	now    func() time.Time
	budget func(*agent.Turn) (*envelope.Budget, func(string), error)
}

type delegateArgs struct {
	To              string  `json:"to"`
	Capability      string  `json:"capability"`
	Task            string  `json:"task"`
	DeadlineSeconds float64 `json:"deadline_seconds"`
}

// Name implements agentloop.Tool.
func (t *DelegateTask) Name() string { return "delegate_task" }

// Spec implements agentloop.Tool.
func (t *DelegateTask) Spec() agent.ToolSpec {
	return agent.ToolSpec{
		Name: t.Name(),
		Description: "Hand a task to another agent, named by id (to) or chosen by a capability it offers. " +
			"The agent accepts or rejects it; its result comes back to this conversation later.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"to":               map[string]any{"type": "string", "description": "the agent id (or give capability)"},
				"capability":       map[string]any{"type": "string", "description": "a capability the agent must offer (or give to)"},
				"task":             map[string]any{"type": "string", "description": "the work to do, in plain words"},
				"deadline_seconds": map[string]any{"type": "number", "description": "optional: seconds until the task must be done"},
			},
			"required": []string{"task"},
		},
	}
}

// Execute implements agentloop.Tool.
func (t *DelegateTask) Execute(ctx context.Context, call agent.Call) (string, error) {
	var args delegateArgs
	if err := call.Decode(&args); err != nil {
		return "", err
	}
	args.To, args.Capability = strings.TrimSpace(args.To), strings.TrimSpace(args.Capability)
	switch {
	case strings.TrimSpace(args.Task) == "":
		return "", errors.New("task is empty: say what the agent should do")
	case args.To == "" && args.Capability == "":
		return "", errors.New("give the agent id (to) or a capability")
	case args.To != "" && args.Capability != "":
		return "", errors.New("give either to or capability, not both")
	case args.DeadlineSeconds < 0:
		return "", errors.New("deadline_seconds must be positive")
	}
	var budget *envelope.Budget
	sent := "" // the id of the task sent, for settle
	if t.budget != nil {
		b, settle, err := t.budget(call.Turn)
		if err != nil {
			return "", fmt.Errorf("%w; the task is not delegated", err)
		}
		budget = b
		defer func() { settle(sent) }()
	}
	target, err := t.target(ctx, args)
	if err != nil {
		return "", err
	}
	in := call.Inbound()
	req := route.Request{
		To: target.AgentID, Type: envelope.TypeTask, Text: args.Task,
		Callback: &envelope.Callback{Channel: in.Channel, ChatID: in.ChatID, SessionID: in.SessionKey()},
		Parent:   parentOf(call),
		Tree:     routedTree(call),
		Budget:   budget,
	}
	if args.Capability != "" {
		req.Via = "any:" + args.Capability // offered to another holder if it is not taken up
	}
	if args.DeadlineSeconds > 0 {
		req.Deadline = t.now().Add(time.Duration(args.DeadlineSeconds * float64(time.Second)))
	}
	msg, err := t.mb.Post(ctx, req)
	if err != nil {
		return "", sendError(err)
	}
	sent = msg.Task.ID
	return fmt.Sprintf("delegated task %s to %s; its updates will come back to this conversation%s",
		msg.Task.ID, msg.To, offlineNote(target)), nil
}

// target resolves the agent the task goes to.
func (t *DelegateTask) target(ctx context.Context, args delegateArgs) (view.Agent, error) {
	if args.To != "" {
		return lookup(ctx, t.mb, args.To)
	}
	a, err := t.mb.PickByCapability(ctx, args.Capability)
	if errors.Is(err, route.ErrNoAgent) {
		return view.Agent{}, fmt.Errorf("no online agent offers the capability %q (call list_agents to see who offers what)", args.Capability)
	}
	return a, err
}
