package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

type listIn struct {
	OnlineOnly bool   `json:"online_only,omitempty" jsonschema:"leave out offline agents"`
	Capability string `json:"capability,omitempty" jsonschema:"keep the agents offering this capability"`
}

func (s *Server) listAgents(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, any, error) {
	a, err := s.current()
	if err != nil {
		return nil, nil, err
	}
	agents, err := a.ch.Agents(ctx, in.OnlineOnly)
	if err != nil {
		return nil, nil, fmt.Errorf("read the agent registry: %w", err)
	}
	if in.Capability != "" {
		agents = slices.DeleteFunc(agents, func(x view.Agent) bool { return !x.HasCapability(in.Capability) })
	}
	return result(agents)
}

type sendIn struct {
	To           string         `json:"to" jsonschema:"an agent id, or all, cap:NAME, role:NAME, any:NAME, a pattern"`
	Text         string         `json:"text" jsonschema:"the message"`
	Data         map[string]any `json:"data,omitempty" jsonschema:"optional structured data sent with the text"`
	Subject      string         `json:"subject,omitempty" jsonschema:"optional kebab-case topic"`
	ExpectsReply bool           `json:"expects_reply,omitempty" jsonschema:"the receiver owes a reply"`
	ReplyWithin  float64        `json:"reply_within_seconds,omitempty" jsonschema:"with expects_reply: seconds until the reply is due"`
	ThreadID     string         `json:"thread_id,omitempty" jsonschema:"join an existing thread"`
	Priority     int            `json:"priority,omitempty" jsonschema:"0 (default) to 3; higher is taken first"`
}

// sent is what send_message and delegate_task report.
type sent struct {
	MessageID string   `json:"message_id,omitempty"`
	TaskID    string   `json:"task_id,omitempty"`
	To        []string `json:"to"`
	ThreadID  string   `json:"thread_id,omitempty"`
	Skipped   []string `json:"skipped,omitempty"`
}

func (s *Server) sendMessage(ctx context.Context, _ *mcp.CallToolRequest, in sendIn) (*mcp.CallToolResult, any, error) {
	a, err := s.current()
	if err != nil {
		return nil, nil, err
	}
	to := strings.TrimSpace(in.To)
	if strings.TrimSpace(in.Text) == "" && in.Data == nil {
		return nil, nil, errors.New("text is empty: say something (or send data)")
	}
	req := route.Request{Text: in.Text, Subject: in.Subject, ExpectsReply: in.ExpectsReply,
		ThreadID: in.ThreadID, Priority: in.Priority, Parts: dataParts(in.Data)}
	if in.ReplyWithin > 0 {
		req.ReplyBy = s.now().Add(time.Duration(in.ReplyWithin * float64(time.Second)))
	}
	target, err := route.ParseTarget(to)
	if err != nil {
		return nil, nil, err
	}
	if target.Kind == route.TargetAgent || target.Kind == route.TargetName {
		id := strings.TrimPrefix(to, "agent:")
		group, err := isGroup(ctx, a, id, target.Kind)
		if err != nil {
			return nil, nil, err
		}
		if !group {
			req.To = id
			msg, err := a.ch.Post(ctx, req)
			if err != nil {
				return nil, nil, err
			}
			return result(sent{MessageID: msg.ID, To: []string{msg.To}, ThreadID: msg.ThreadID})
		}
	}
	out, err := a.ch.PostTo(ctx, to, req)
	if err != nil {
		return nil, nil, err
	}
	var r sent
	for _, m := range out.Sent {
		r.To = append(r.To, m.To)
		r.ThreadID = m.ThreadID
	}
	for _, sk := range out.Skipped {
		r.Skipped = append(r.Skipped, fmt.Sprintf("%s: %v", sk.To, sk.Err))
	}
	return result(r)
}

// isGroup reports whether a bare name is no registered agent but a
// capability or role another agent has.
func isGroup(ctx context.Context, a *agent, name string, kind route.TargetKind) (bool, error) {
	if kind == route.TargetAgent {
		return false, nil
	}
	agents, err := a.ch.Agents(ctx, false)
	if err != nil {
		return false, fmt.Errorf("read the agent registry: %w", err)
	}
	if slices.ContainsFunc(agents, func(x view.Agent) bool { return x.AgentID == name }) {
		return false, nil
	}
	self := a.ch.AgentID()
	return slices.ContainsFunc(agents, func(x view.Agent) bool {
		return x.AgentID != self && (x.HasCapability(name) || x.HasRole(name))
	}), nil
}

func dataParts(d map[string]any) []envelope.Part {
	if d == nil {
		return nil
	}
	return []envelope.Part{envelope.DataPart(d)}
}

type delegateIn struct {
	To              string         `json:"to,omitempty" jsonschema:"the agent id (or give capability)"`
	Capability      string         `json:"capability,omitempty" jsonschema:"a capability the agent must offer (or give to)"`
	Task            string         `json:"task" jsonschema:"the work to do, in plain words"`
	Data            map[string]any `json:"data,omitempty" jsonschema:"optional structured input of the task"`
	DeadlineSeconds float64        `json:"deadline_seconds,omitempty" jsonschema:"optional: seconds until the task must be done"`
}

func (s *Server) delegateTask(ctx context.Context, _ *mcp.CallToolRequest, in delegateIn) (*mcp.CallToolResult, any, error) {
	a, err := s.current()
	if err != nil {
		return nil, nil, err
	}
	in.To, in.Capability = strings.TrimSpace(in.To), strings.TrimSpace(in.Capability)
	switch {
	case strings.TrimSpace(in.Task) == "":
		return nil, nil, errors.New("task is empty: say what the agent should do")
	case (in.To == "") == (in.Capability == ""):
		return nil, nil, errors.New("give either the agent id (to) or a capability")
	case in.DeadlineSeconds < 0:
		return nil, nil, errors.New("deadline_seconds must be positive")
	}
	to := in.To
	if in.Capability != "" {
		pick, err := a.ch.PickByCapability(ctx, in.Capability)
		if errors.Is(err, route.ErrNoAgent) {
			return nil, nil, fmt.Errorf("no online agent offers the capability %q (call list_agents to see who offers what)", in.Capability)
		} else if err != nil {
			return nil, nil, err
		}
		to = pick.AgentID
	}
	req := route.Request{To: to, Type: envelope.TypeTask, Text: in.Task, Parts: dataParts(in.Data)}
	if in.DeadlineSeconds > 0 {
		req.Deadline = s.now().Add(time.Duration(in.DeadlineSeconds * float64(time.Second)))
	}
	msg, err := a.ch.Post(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	return result(sent{MessageID: msg.ID, TaskID: msg.Task.ID, To: []string{msg.To}, ThreadID: msg.ThreadID})
}
