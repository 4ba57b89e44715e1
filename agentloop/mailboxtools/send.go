package mailboxtools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-dev/switchboard/agent"

	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

// SendMessage is the send_message tool: a plain message (not a task) to
// another agent, or one copy to each agent of a group (see
// route.ParseTarget): all, cap:NAME, role:NAME, any:NAME, a pattern such
// as coder-*, or a bare name that is a capability or role. Sent to the
// agent whose message is being handled, it is a reply to that message.
type SendMessage struct{ mb Mailbox }

// Name implements agentloop.Tool.
func (t *SendMessage) Name() string { return "send_message" }

// Spec implements agentloop.Tool.
func (t *SendMessage) Spec() agent.ToolSpec {
	return agent.ToolSpec{
		Name: t.Name(),
		Description: "Send a plain message (a note or question, not a task) to another agent, or a copy " +
			"to each agent of a group.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"to": map[string]any{"type": "string", "description": "an agent id; or a group: all (every " +
					"other agent), cap:NAME or role:NAME (every holder), any:NAME (the least loaded online " +
					"holder), a pattern such as coder-*"},
				"text": map[string]any{"type": "string", "description": "the message"},
			},
			"required": []string{"to", "text"},
		},
	}
}

// Execute implements agentloop.Tool.
func (t *SendMessage) Execute(ctx context.Context, call agent.Call) (string, error) {
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
	to := strings.TrimSpace(args.To)
	req := route.Request{Text: args.Text, Parent: parentOf(call)}
	group, err := t.isGroup(ctx, to)
	if err != nil {
		return "", err
	}
	if group {
		out, err := t.mb.PostTo(ctx, to, req)
		if err != nil {
			return "", sendError(err)
		}
		return fanoutResult(to, out), nil
	}
	target, err := lookup(ctx, t.mb, strings.TrimPrefix(to, "agent:"))
	if err != nil {
		return "", err
	}
	req.To = target.AgentID
	msg, err := t.mb.Post(ctx, req)
	if err != nil {
		return "", sendError(err)
	}
	return fmt.Sprintf("sent message %s to %s%s", msg.ID, msg.To, offlineNote(target)), nil
}

// isGroup reports whether to names a group rather than one agent: a
// target of kind all, cap, role, any or pattern, or a bare name that is
// no registered agent but a capability or role some other agent has.
func (t *SendMessage) isGroup(ctx context.Context, to string) (bool, error) {
	target, err := route.ParseTarget(to)
	if err != nil {
		return false, err
	}
	switch target.Kind {
	case route.TargetAgent:
		return false, nil
	case route.TargetName:
	default:
		return true, nil
	}
	agents, err := t.mb.Agents(ctx, false)
	if err != nil {
		return false, fmt.Errorf("read the agent registry: %w", err)
	}
	if slices.ContainsFunc(agents, func(a view.Agent) bool { return a.AgentID == to }) {
		return false, nil
	}
	return slices.ContainsFunc(agents, func(a view.Agent) bool {
		return a.AgentID != t.mb.AgentID() && (a.HasCapability(to) || a.HasRole(to))
	}), nil
}

// fanoutResult tells the model who got a copy, and who was skipped.
func fanoutResult(to string, out route.Fanout) string {
	var b strings.Builder
	ids := make([]string, len(out.Sent))
	for i, m := range out.Sent {
		ids[i] = m.To
	}
	fmt.Fprintf(&b, "sent %d message(s) to %s: %s", len(out.Sent), to, strings.Join(ids, ", "))
	if len(out.Sent) > 0 {
		fmt.Fprintf(&b, " (thread %s)", out.Sent[0].ThreadID)
	}
	for _, s := range out.Skipped {
		fmt.Fprintf(&b, "; skipped %s: %v", s.To, s.Err)
	}
	return b.String()
}
