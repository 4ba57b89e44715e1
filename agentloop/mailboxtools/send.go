package mailboxtools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/agentloop"
	"github.com/switchboard-dev/switchboard/channels/mailbox"
)

// SendMessage is the send_message tool: a plain message (not a task) to
// another agent. Sent to the agent whose message is being handled, it is
// a reply to that message.
type SendMessage struct{ mb Mailbox }

// Name implements agentloop.Tool.
func (t *SendMessage) Name() string { return "send_message" }

// Spec implements agentloop.Tool.
func (t *SendMessage) Spec() agentloop.ToolSpec {
	return agentloop.ToolSpec{
		Name:        t.Name(),
		Description: "Send a plain message (a note or question, not a task) to another agent.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"to":   map[string]any{"type": "string", "description": "the agent id"},
				"text": map[string]any{"type": "string", "description": "the message"},
			},
			"required": []string{"to", "text"},
		},
	}
}

// Execute implements agentloop.Tool.
func (t *SendMessage) Execute(ctx context.Context, call agentloop.Call) (string, error) {
	var args struct {
		To   string `json:"to"`
		Text string `json:"text"`
	}
	if err := call.Decode(&args); err != nil {
		return "", err
	}
	if strings.TrimSpace(args.Text) == "" {
		return "", errors.New("text is empty")
	}
	target, err := lookup(ctx, t.mb, strings.TrimSpace(args.To))
	if err != nil {
		return "", err
	}
	msg, err := t.mb.Post(ctx, mailbox.Request{To: target.AgentID, Text: args.Text, Parent: parentOf(call)})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("sent message %s to %s%s", msg.ID, msg.To, offlineNote(target)), nil
}
