package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-dev/switchboard/internal/mailbox/route"
)

// SendArgs are the arguments of send_message.
type SendArgs struct {
	To           string         `json:"to" jsonschema:"an agent id; or a group: all (every other agent), cap:NAME or role:NAME (every holder), any:NAME (the least loaded online holder), a pattern such as coder-*"`
	Text         string         `json:"text" jsonschema:"the message"`
	Data         map[string]any `json:"data,omitempty" jsonschema:"optional structured data sent with the text"`
	Subject      string         `json:"subject,omitempty" jsonschema:"optional kebab-case topic"`
	ExpectsReply bool           `json:"expects_reply,omitempty" jsonschema:"the receiver owes a reply"`
	ReplyWithin  float64        `json:"reply_within_seconds,omitempty" jsonschema:"with expects_reply: seconds until the reply is due (at most a year: 31536000)"`
	ThreadID     string         `json:"thread_id,omitempty" jsonschema:"join an existing thread"`
	Priority     int            `json:"priority,omitempty" jsonschema:"0 (default) to 3; higher is taken first"`
}

// SendMessage is the send_message tool: a plain message (not a task) to
// another agent, or one copy to each agent of a group (see
// route.ParseTarget): all, cap:NAME, role:NAME, any:NAME, a pattern such
// as coder-*, or a bare name that is a capability or role. Sent while the
// loop handles a message from the recipient, it continues that message's
// thread. A model reads "sent message <id> to <agent>"; an MCP client
// gets a Sent.
var SendMessage = Tool[SendArgs]{
	Name: "send_message",
	Description: "Send a plain message (a note or question, not a task) to another agent, or a copy " +
		"to each agent of a group. Set expects_reply to make it a request the receiver must answer.",
	Use: "send a note or question (not a task) to another agent",
	Run: sendMessage,
}

func sendMessage(ctx context.Context, c Caller, in SendArgs) (Result, error) {
	if strings.TrimSpace(in.Text) == "" && in.Data == nil {
		return Result{}, errors.New("text is empty")
	}
	to := strings.TrimSpace(in.To)
	req := route.Request{Text: in.Text, Parts: dataParts(in.Data), Parent: c.parent(), Subject: in.Subject,
		ExpectsReply: in.ExpectsReply, ThreadID: in.ThreadID, Priority: in.Priority}
	within, err := waitOf("reply_within_seconds", in.ReplyWithin)
	if err != nil {
		return Result{}, err
	}
	if within > 0 {
		req.ReplyBy = c.now().Add(within)
	}
	group, err := c.isGroup(ctx, to)
	if err != nil {
		return Result{}, err
	}
	if group {
		out, err := c.Mailbox.PostTo(ctx, to, req)
		if err != nil {
			return Result{}, sendError(err)
		}
		return fanoutResult(to, out), nil
	}
	target, err := c.recipient(ctx, strings.TrimPrefix(to, "agent:"))
	if err != nil {
		return Result{}, err
	}
	req.To = target.AgentID
	msg, err := c.Mailbox.Post(ctx, req)
	if err != nil {
		return Result{}, sendError(err)
	}
	return Result{Text: fmt.Sprintf("sent message %s to %s%s", msg.ID, msg.To, offlineNote(target)),
		Data: Sent{MessageID: msg.ID, To: []string{msg.To}, ThreadID: msg.ThreadID}}, nil
}

// fanoutResult says who got a copy, and who was skipped.
func fanoutResult(to string, out route.Fanout) Result {
	var b strings.Builder
	var data Sent
	ids := make([]string, len(out.Sent))
	for i, m := range out.Sent {
		ids[i] = m.To
		data.To, data.ThreadID = append(data.To, m.To), m.ThreadID
	}
	fmt.Fprintf(&b, "sent %d message(s) to %s: %s", len(out.Sent), to, strings.Join(ids, ", "))
	if len(out.Sent) > 0 {
		fmt.Fprintf(&b, " (thread %s)", out.Sent[0].ThreadID)
	}
	for _, s := range out.Skipped {
		fmt.Fprintf(&b, "; skipped %s: %v", s.To, s.Err)
		data.Skipped = append(data.Skipped, fmt.Sprintf("%s: %v", s.To, s.Err))
	}
	return Result{Text: b.String(), Data: data}
}
