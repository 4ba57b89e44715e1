package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/channels/mailbox/store"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

type threadIn struct {
	ID string `json:"id" jsonschema:"a message id (or a task id) of one of your conversations"`
}

// threadEntry is one message of a thread as the thread tool shows it.
type threadEntry struct {
	Depth   int               `json:"depth"`
	Agent   string            `json:"mailbox"`
	Box     store.Box         `json:"box"`
	Message *envelope.Message `json:"message"`
}

// thread is the thread tool: the conversation a message belongs to, as
// far as it is the registered agent's. An agent sees only its own
// conversations: of a thread, the messages it sent or received; a thread
// it has none in is refused as one that does not exist, so that the tool
// tells nothing of other agents' conversations, not even that they are.
func (s *Server) thread(ctx context.Context, _ *mcp.CallToolRequest, in threadIn) (*mcp.CallToolResult, any, error) {
	a, err := s.current()
	if err != nil {
		return nil, nil, err
	}
	b := a.ch.Backend()
	if b == nil || !b.Has(store.CanBrowse) {
		return nil, nil, errors.New("this mailbox store cannot show threads (its backend does not browse messages)")
	}
	me := a.ch.AgentID()
	notYours := fmt.Errorf("%w: no conversation of yours has a message or task %q", view.ErrNotFound, in.ID)
	chain, err := view.Thread(ctx, b, in.ID)
	if errors.Is(err, view.ErrNotFound) {
		return nil, nil, notYours
	}
	if err != nil {
		return nil, nil, err
	}
	out := []threadEntry{}
	for _, e := range chain {
		if ownMessage(me, e.Stored) {
			out = append(out, threadEntry{Depth: e.Depth, Agent: e.Agent, Box: e.Box, Message: e.Message})
		}
	}
	if len(out) == 0 {
		s.log.Warn("thread refused: not a conversation of the agent", "agent", me, "id", in.ID)
		return nil, nil, notYours
	}
	return result(out)
}

// ownMessage reports whether agent me sent or received st: it is in me's
// mailbox, or names me as its sender or recipient.
func ownMessage(me string, st store.Stored) bool {
	if st.Agent == me {
		return true
	}
	return st.Message != nil && (st.Message.From == me || st.Message.To == me)
}
