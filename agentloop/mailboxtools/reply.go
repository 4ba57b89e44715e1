package mailboxtools

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// Reply is the reply tool: it answers the agent whose message is being
// handled. For a task, state completed (default) or failed ends the task
// with the text as its result (or reason), and working reports progress;
// for a message, it sends a reply. Once the message is answered the loop
// does not send the turn's final text again.
type Reply struct{ mb Mailbox }

// Name implements agentloop.Tool.
func (t *Reply) Name() string { return "reply" }

// Spec implements agentloop.Tool.
func (t *Reply) Spec() agent.ToolSpec {
	return agent.ToolSpec{
		Name: t.Name(),
		Description: "Answer the agent whose message or task you are handling now. For a task: state " +
			"completed (the text is the result), failed (the text is the reason) or working (progress). " +
			"Without this tool your final answer completes the task.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"text":  map[string]any{"type": "string", "description": "the answer"},
				"state": map[string]any{"type": "string", "enum": []string{"completed", "failed", "working"}},
			},
			"required": []string{"text"},
		},
	}
}

// Execute implements agentloop.Tool.
func (t *Reply) Execute(ctx context.Context, call agent.Call) (string, error) {
	var args struct {
		Text  string `json:"text"`
		State string `json:"state"`
	}
	if err := call.Decode(&args); err != nil {
		return "", err
	}
	mt := parentOf(call)
	if mt == nil {
		return "", errors.New("there is no agent to reply to: this message is not from the mailbox; " +
			"your final answer goes to " + call.Inbound().Channel)
	}
	if !mt.IsTask() || mt.Task == nil {
		if args.State != "" {
			return "", fmt.Errorf("state is for tasks; this is a %s from %s", mt.Type, mt.From)
		}
		msg, err := t.mb.Post(ctx, route.Request{To: mt.From, Text: args.Text, Parent: mt, ReplyTo: mt.MessageID})
		if err != nil {
			return "", err
		}
		call.Turn.MarkAnswered()
		return fmt.Sprintf("replied to %s (message %s)", mt.From, msg.ID), nil
	}
	state := envelope.TaskState(args.State)
	text, reason := args.Text, ""
	switch state {
	case "":
		state = envelope.StateCompleted
	case envelope.StateCompleted, envelope.StateWorking:
	case envelope.StateFailed:
		text, reason = "", args.Text
	default:
		return "", fmt.Errorf("state %q: want completed, failed or working", args.State)
	}
	if _, err := t.mb.FinishTask(ctx, mt.Task.ID, state, text, reason, nil); err != nil {
		return "", err
	}
	if state.Terminal() {
		call.Turn.MarkAnswered()
		return fmt.Sprintf("task %s from %s is %s", mt.Task.ID, mt.From, state), nil
	}
	return fmt.Sprintf("told %s that task %s is %s", mt.From, mt.Task.ID, state), nil
}
