package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTools adds every tool of the server.
func (s *Server) addTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "register", Description: "Become a mailbox agent: register a card with your id, " +
		"a description and capabilities, and heartbeat while this session lives. Needed once, unless the server was started with --agent."},
		s.register)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "list_agents", Description: "List the agents of the mailbox: id, description, " +
		"capabilities, status (idle, busy, offline) and tasks."}, s.listAgents)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "send_message", Description: "Send a message. to is an agent id, or a group: all, " +
		"cap:NAME, role:NAME, any:NAME (one agent of the capability), a pattern like coder-*. Set expects_reply to make it a request the receiver must answer."},
		s.sendMessage)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "delegate_task", Description: "Give a task to another agent, named by id (to) or chosen " +
		"by a capability it offers. It accepts or rejects it; its updates and result arrive in your inbox (check_inbox) as task_update messages."},
		s.delegateTask)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "check_inbox", Description: "Take the messages that arrived for you, oldest first " +
		"(each is handed once). Messages handed before are acknowledged now; set ack to acknowledge these at once. " +
		"Tasks stay open until update_task ends them, requests until you reply."}, s.checkInbox)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "reply", Description: "Answer a message you received (by its id): the reply goes " +
		"to its sender in the same thread and settles a request."}, s.reply)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "update_task", Description: "Report on a task you were given: state progress " +
		"(with text), complete (the result, as text and data) or fail (with the reason). complete and fail end the task."},
		s.updateTask)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "thread", Description: "Show the conversation a message belongs to, in causal order."},
		s.thread)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "pending", Description: "Show the replies you owe (requests and tasks received " +
		"and not answered) and those you wait for."}, s.pending)
}

// result is a tool result whose text is v as indented JSON (or v itself
// when it is a string).
func result(v any) (*mcp.CallToolResult, any, error) {
	text, ok := v.(string)
	if !ok {
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return nil, nil, fmt.Errorf("encode result: %w", err)
		}
		text = string(data)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

type registerIn struct {
	AgentID      string   `json:"agent_id" jsonschema:"your agent id: letters, digits, '-', '_' or '.'"`
	Description  string   `json:"description,omitempty" jsonschema:"what you do, for other agents"`
	Capabilities []string `json:"capabilities,omitempty" jsonschema:"what you can be given tasks for, e.g. code-review"`
}

func (s *Server) register(ctx context.Context, _ *mcp.CallToolRequest, in registerIn) (*mcp.CallToolResult, any, error) {
	if err := s.Register(ctx, Card{AgentID: in.AgentID, Description: in.Description, Capabilities: in.Capabilities}); err != nil {
		return nil, nil, err
	}
	return result(fmt.Sprintf("registered as %s; check_inbox for your mail", in.AgentID))
}
