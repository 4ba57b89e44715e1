package mailbox

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/mailbox/envelope"
	"github.com/switchboard-dev/switchboard/internal/mailbox/meta"
	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// Send delivers an outbound message of channel "mailbox"; its chat id is
// the target agent. What it becomes is decided by meta.Answers, as the
// agent loop decides what to answer: when its metadata carries the Meta of
// a message this agent received from that agent (the loop copies the
// inbound metadata into its answer), it answers that message: the answer
// to a task becomes the task's final task_update (completed, or the state
// set with meta.WithReply; failed with its reason when out.Failure says
// the work failed), any other answer a message with reply_to set.
// An answer to a subtask's update routed back to the conversation of a
// task this agent works on is an update of that task (subtasks.go).
// Otherwise it is a new message (with a fresh trace), or a forward when
// the Meta belongs to a message from another agent.
func (c *Channel) Send(ctx context.Context, out bus.OutboundMessage) error {
	if err := envelope.ValidateAgentID(out.ChatID); err != nil {
		return fmt.Errorf("mailbox send: chat id must be the target agent id: %w", err)
	}
	var parts []envelope.Part
	for _, p := range out.Media {
		parts = append(parts, envelope.FilePart(p))
	}
	kind, mt, answers := meta.Answers(out.Metadata, out.ChatID)
	if answers && kind == meta.KindTask && mt.Task != nil {
		reply := replyOf(out)
		state := reply.State
		if state == "" {
			state = envelope.StateCompleted
		}
		_, err := c.FinishTask(ctx, mt.Task.ID, state, out.Content, reply.Reason, parts)
		if errors.Is(err, ErrTaskNotActive) && c.Canceled(mt.Task.ID) {
			// Its delegator canceled it while the turn ran: the answer has
			// nowhere to go, and nothing is lost by dropping it.
			c.Logger().Info("answer to a canceled task dropped", "id", mt.MessageID, "thread", mt.ThreadID, "task", mt.Task.ID)
			return nil
		}
		return err
	}
	if done, err := c.answerInTask(ctx, out, mt, parts); done {
		return err
	}
	req := route.Request{To: out.ChatID, Text: out.Content, Parts: parts, ReplyTo: out.ReplyTo}
	if mt != nil && kind != meta.KindChat { // an update routed to a user's chat is no parent
		req.Parent = mt
		if answers && req.ReplyTo == "" {
			req.ReplyTo = mt.MessageID
		}
	}
	_, err := c.Post(ctx, req)
	return err
}

// replyOf returns how out answers a task: the reply options of its
// metadata (meta.WithReply), unless out.Failure says that the agent's
// work failed: then the task fails with that reason.
func replyOf(out bus.OutboundMessage) meta.Reply {
	if out.Failure != "" {
		return meta.Reply{State: envelope.StateFailed, Reason: out.Failure}
	}
	r, _ := meta.ReplyOf(out.Metadata)
	return r
}
