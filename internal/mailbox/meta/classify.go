package meta

import "github.com/switchboard-dev/switchboard/channels/mailbox/envelope"

// Kind is what an inbound message asks of the agent, and so what the
// agent's answer to it becomes.
type Kind int

// The kinds of inbound message.
const (
	// KindChat is a user's message, or a mailbox update routed back to
	// the conversation a delegated task began in: answer it in that chat.
	KindChat Kind = iota
	// KindTask is a task delegated to this agent: the answer ends it (a
	// task_update, completed unless a Reply says otherwise).
	KindTask
	// KindMessage is a message from another agent: the answer goes back
	// to its sender as a reply (reply_to set).
	KindMessage
	// KindRecordOnly is an update of a task, or a reply to a message:
	// record it, never answer it, so two agents cannot thank each other
	// for ever.
	KindRecordOnly
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case KindTask:
		return "task"
	case KindMessage:
		return "message"
	case KindRecordOnly:
		return "record-only"
	}
	return "chat"
}

// Classify returns the kind of the message whose metadata is md, and its
// Meta when it came from the mailbox (nil for a plain chat message).
func Classify(md map[string]any) (Kind, *Meta) {
	m, ok := Of(md)
	if !ok {
		return KindChat, nil
	}
	return m.Kind(), m
}

// Kind is the kind of the message m describes (see Classify).
func (m *Meta) Kind() Kind {
	switch {
	case m.Routed():
		return KindChat
	case m.Type == envelope.TypeTaskUpdate, m.ReplyTo != "" && !m.IsTask():
		return KindRecordOnly
	case m.IsTask():
		return KindTask
	}
	return KindMessage
}

// Answers reports whether a message sent to agent `to` with md copied from
// an inbound message answers that message: it goes back to the agent that
// sent it, and the inbound was not routed to a user's chat. A task's
// answer ends the task; any other answer is a reply.
func Answers(md map[string]any, to string) (Kind, *Meta, bool) {
	k, m := Classify(md)
	if m == nil || k == KindChat || m.From != to {
		return k, m, false
	}
	return k, m, true
}
