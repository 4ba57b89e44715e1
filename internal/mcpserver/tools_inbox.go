package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-dev/switchboard/clock"
	"github.com/switchboard-dev/switchboard/internal/mailbox/view"
)

func (s *Server) now() time.Time { return clock.Or(s.opts.Clock).Now() }

type checkIn struct {
	Max int  `json:"max,omitempty" jsonschema:"take at most this many messages (0: all)"`
	Ack bool `json:"ack,omitempty" jsonschema:"acknowledge these messages at once instead of at the next check_inbox"`
	// AckIDs acknowledges messages handed before, by id.
	AckIDs []string `json:"ack_ids,omitempty" jsonschema:"acknowledge only these messages handed before (without taking new ones)"`
}

// inboxOut is what check_inbox returns.
type inboxOut struct {
	Messages []Message `json:"messages"`
	// Acknowledged lists the ids ack_ids acknowledged.
	Acknowledged []string `json:"acknowledged,omitempty"`
}

func (s *Server) checkInbox(ctx context.Context, _ *mcp.CallToolRequest, in checkIn) (*mcp.CallToolResult, any, error) {
	a, err := s.current()
	if err != nil {
		return nil, nil, err
	}
	a.awaitRecovered(ctx)
	if in.Max < 0 {
		return nil, nil, errors.New("max must be 0 (all) or more")
	}
	if len(in.AckIDs) > 0 {
		if unknown := a.inbox.acknowledge(in.AckIDs); len(unknown) > 0 {
			return nil, nil, fmt.Errorf("not waiting for an acknowledgement: %s (acknowledged already, or never handed)", strings.Join(unknown, ", "))
		}
		return result(inboxOut{Messages: []Message{}, Acknowledged: in.AckIDs})
	}
	out := inboxOut{Messages: []Message{}}
	for _, m := range a.inbox.take(in.Max, in.Ack) {
		out.Messages = append(out.Messages, render(m, a.inbox.given))
	}
	return result(out)
}

// readInbox is the InboxURI resource: the queued messages, not taken.
func (s *Server) readInbox(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	msgs := []Message{}
	if a, err := s.current(); err == nil {
		a.awaitRecovered(ctx)
		for _, m := range a.inbox.peek() {
			msgs = append(msgs, render(m, a.inbox.given))
		}
	}
	data, err := json.MarshalIndent(map[string]any{"messages": msgs}, "", "  ")
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
		{URI: req.Params.URI, MIMEType: "application/json", Text: string(data)}}}, nil
}

type pendingIn struct {
	TaskID string `json:"task_id,omitempty" jsonschema:"only the replies of this task"`
}

func (s *Server) pending(_ context.Context, _ *mcp.CallToolRequest, in pendingIn) (*mcp.CallToolResult, any, error) {
	a, err := s.current()
	if err != nil {
		return nil, nil, err
	}
	p := a.ch.PendingReplies(in.TaskID)
	if p.Owed == nil {
		p.Owed = []view.PendingReply{}
	}
	if p.Awaited == nil {
		p.Awaited = []view.PendingReply{}
	}
	return result(p)
}
