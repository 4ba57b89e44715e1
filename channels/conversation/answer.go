package conversation

import (
	"time"

	"github.com/switchboard-dev/switchboard/bus"
)

// messageKey is the metadata key that carries, on a message taken in, its
// id: the agent loop copies the metadata of a message into its answer, so
// the answer names the message it answers.
const messageKey = "conversation_message"

// Tag marks in as a message of the conversation: the answer to it will
// name in.ID (Answer.ReplyTo). in.ID must be set.
func Tag(in *bus.InboundMessage) {
	md := make(map[string]any, len(in.Metadata)+1)
	for k, v := range in.Metadata {
		md[k] = v
	}
	md[messageKey] = in.ID
	in.Metadata = md
}

// replyTo returns the id of the message out answers, "" when out answers
// none taken in through the conversation (news of a delegated task).
func replyTo(out bus.OutboundMessage) string {
	id, _ := out.Metadata[messageKey].(string)
	return id
}

// Answer is one message the agent sent to a chat.
type Answer struct {
	// Seq numbers the chat's answers from 1, in the order they were sent.
	Seq int64 `json:"seq"`
	// Chat is the chat (the channel's chat id) the answer went to.
	Chat string `json:"chat"`
	// ReplyTo is the id of the message it answers; "" for news the agent
	// sends on its own (the result of a task it delegated).
	ReplyTo string `json:"reply_to,omitempty"`
	// Text is what the agent said.
	Text string `json:"text"`
	// Failure, when set, says that the agent could not do what it was
	// asked, and why (the model could not be reached, a budget is spent);
	// Text is then what a person is told.
	Failure string `json:"failure,omitempty"`
	// Media lists the paths of files the answer comes with.
	Media []string `json:"media,omitempty"`
	// Time is when the channel was given the answer.
	Time time.Time `json:"time"`
}
