package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/channels/mailbox/tools"
)

// addTools adds every tool of the server: those of the mailbox's tool set
// (package channels/mailbox/tools, which the agent loop's model uses
// too), called as the registered agent, and those of this server's own
// session (register, check_inbox, thread, pending). Files a client attaches
// by a relative path, and artifacts it reads, are in Options.Workspace.
func (s *Server) addTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "register", Description: "Become a mailbox agent: register a card with your id, " +
		"a description and capabilities, and heartbeat while this session lives. Needed once, unless the server was started with --agent."},
		s.register)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "challenge", Description: "Get a nonce to prove you are your agent with its signing key: " +
		"sign it with `switchboard keys prove ID NONCE` where the key is, and give the result as register's token."}, s.challenge)
	add(s, tools.ListAgents)
	add(s, tools.SendMessage)
	add(s, tools.DelegateTask)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "check_inbox", Description: "Take the messages that arrived for you, oldest first " +
		"(each is handed once). Messages handed before are acknowledged now; set ack to acknowledge these at once. " +
		"Tasks stay open until update_task ends them, requests until you reply."}, s.checkInbox)
	add(s, tools.Reply)
	add(s, tools.UpdateTask)
	add(s, tools.ReadArtifact)
	add(s, tools.ReserveFiles)
	add(s, tools.ReleaseFiles)
	add(s, tools.FileReservations)
	add(s, tools.AnswerEscalation)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "thread", Description: "Show the conversation a message belongs to, in causal order."},
		s.thread)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: "pending", Description: "Show the replies you owe (requests and tasks received " +
		"and not answered) and those you wait for."}, s.pending)
}

// add registers t, a tool of the mailbox's tool set, with the MCP SDK,
// which derives its input schema from In as agent.NewTool does for the
// agent loop. The registered agent calls it: it names the message it
// answers (one check_inbox handed it), may write to an agent that has not
// registered yet, and its delegated tasks report to its inbox. The result
// is t's Data as JSON.
func add[In any](s *Server, t tools.Tool[In]) {
	mcp.AddTool(s.mcp, &mcp.Tool{Name: t.Name, Description: t.Description},
		func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
			a, err := s.current()
			if err != nil {
				return nil, nil, err
			}
			res, err := t.Run(ctx, tools.Caller{Mailbox: a.ch, Handed: a.inbox.lookup, Now: s.now}, in)
			if err != nil {
				return nil, nil, err
			}
			if res.Data == nil {
				return result(res.Text)
			}
			return result(res.Data)
		})
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
	Token        string   `json:"token,omitempty" jsonschema:"the agent's token, when the server's operator configured one for your agent id; or key:... from switchboard keys prove, to prove it with the agent's key (see the challenge tool)"`
}

func (s *Server) register(ctx context.Context, _ *mcp.CallToolRequest, in registerIn) (*mcp.CallToolResult, any, error) {
	card := Card{AgentID: in.AgentID, Description: in.Description, Capabilities: in.Capabilities}
	if err := s.registerClient(ctx, card, in.Token); err != nil {
		return nil, nil, err
	}
	return result(fmt.Sprintf("registered as %s; check_inbox for your mail", in.AgentID))
}
