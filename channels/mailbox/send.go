package mailbox

import (
	"context"
	"fmt"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
)

// Send delivers an outbound message of channel "mailbox"; its chat id is
// the target agent. When its metadata carries the Meta of a message this
// agent received from that agent (the agent loop copies the inbound
// metadata into its answer), it is a reply: the answer to a task becomes
// the task's final task_update (completed, or the state set with
// WithReply), and any other answer a message with reply_to set. Otherwise
// it is a new message (with a fresh trace), or a forward when the Meta
// belongs to a message from another agent.
func (c *Channel) Send(ctx context.Context, out bus.OutboundMessage) error {
	if err := envelope.ValidateAgentID(out.ChatID); err != nil {
		return fmt.Errorf("mailbox send: chat id must be the target agent id: %w", err)
	}
	var parts []envelope.Part
	for _, p := range out.Media {
		parts = append(parts, envelope.FilePart(p))
	}
	meta, hasMeta := MetaOf(out.Metadata)
	if hasMeta && meta.Routed() {
		hasMeta = false // an update routed to a user's chat: not an answer to the worker
	}
	reply, _ := ReplyOf(out.Metadata)
	if hasMeta && meta.From == out.ChatID && meta.IsTask() && meta.Task != nil {
		state := reply.State
		if state == "" {
			state = envelope.StateCompleted
		}
		_, err := c.FinishTask(ctx, meta.Task.ID, state, out.Content, reply.Reason, parts)
		return err
	}
	req := Request{To: out.ChatID, Text: out.Content, Parts: parts, ReplyTo: out.ReplyTo}
	if hasMeta {
		req.Parent = meta
		if meta.From == out.ChatID && req.ReplyTo == "" {
			req.ReplyTo = meta.MessageID
		}
	}
	_, err := c.Post(ctx, req)
	return err
}
