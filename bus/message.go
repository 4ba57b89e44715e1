package bus

import "time"

// InboundMessage is a message that arrived on a channel and is bound for the
// agent loop. It mirrors nanobot's InboundMessage event.
type InboundMessage struct {
	// Channel names the channel the message came from ("feishu", "mailbox").
	Channel string `json:"channel"`
	// SenderID identifies the sender within the channel (a user or agent id).
	SenderID string `json:"sender_id"`
	// ChatID identifies the conversation within the channel; replies go there.
	ChatID string `json:"chat_id"`
	// Content is the text of the message.
	Content string `json:"content"`
	// Media lists paths or URLs of attached media.
	Media []string `json:"media,omitempty"`
	// Metadata carries channel-specific data. Channels provide typed helpers
	// for their own keys; callers should not build keys by hand.
	Metadata map[string]any `json:"metadata,omitempty"`
	// SessionKeyOverride, when set, replaces the default session key. The
	// mailbox uses it to route a task's results into the conversation where
	// the task began.
	SessionKeyOverride string `json:"session_key_override,omitempty"`
	// Timestamp is when the message was received (or sent, when known).
	Timestamp time.Time `json:"timestamp"`
	// ID is the channel's own id of the message, when it has one (the
	// mailbox message's id, the chat platform's message id): the consumer
	// recognises a message handed over again by it.
	ID string `json:"id,omitempty"`
	// Redelivered is set on a message the channel may have handed over
	// before (it was not finished then: a crash, a stop); the consumer
	// looks for an answer it already made to ID before working on it again.
	Redelivered bool `json:"redelivered,omitempty"`
	// TraceContext is the W3C trace context (the keys traceparent and
	// tracestate) of the span that took the message in; the consumer's
	// work on it joins that trace. Nil when tracing is off.
	TraceContext map[string]string `json:"trace_context,omitempty"`
	// Kind is what the message asks of the agent (see Kind): the channel
	// decides it; the zero value is a person's message.
	Kind Kind `json:"kind,omitempty"`
	// Note, when set, is how the message is shown to the model instead of
	// Content: a message from another agent (see Note). Nil for a
	// person's message.
	Note *Note `json:"note,omitempty"`
	// Thread names the thread of the conversation the message belongs to,
	// when the channel has threads (the mailbox's thread id): logs name it.
	Thread string `json:"thread,omitempty"`
	// Ack, when set, is how the consumer tells the channel that it has
	// finished with the message: call Done. Until then the channel keeps
	// the message where it comes back after a crash or a stop (a mailbox
	// message stays claimed, a chat event stays in the channel's journal).
	// It is never serialised.
	Ack func() `json:"-"`
}

// Done tells the channel the message came from that the consumer has
// finished with it: its turn completed and its answer was sent (or there
// was nothing to answer). Putting a message on the bus, or taking it off,
// is not finishing with it. Done does nothing for a message without Ack;
// the channel's Ack makes a second call harmless.
func (m InboundMessage) Done() {
	if m.Ack != nil {
		m.Ack()
	}
}

// SessionKey names the conversation this message belongs to: the override
// when set, otherwise "channel:chat_id".
func (m InboundMessage) SessionKey() string {
	if m.SessionKeyOverride != "" {
		return m.SessionKeyOverride
	}
	return m.Channel + ":" + m.ChatID
}

// OutboundMessage is a message the agent sends out through a channel. It
// mirrors nanobot's OutboundMessage event.
type OutboundMessage struct {
	// Channel names the channel that must deliver the message.
	Channel string `json:"channel"`
	// ChatID is the conversation (or, for the mailbox, the target agent id).
	ChatID string `json:"chat_id"`
	// Content is the text to send.
	Content string `json:"content"`
	// ReplyTo is the id of the message this one answers, if any.
	ReplyTo string `json:"reply_to,omitempty"`
	// Media lists paths or URLs of media to attach.
	Media []string `json:"media,omitempty"`
	// Metadata carries channel-specific data (see InboundMessage.Metadata).
	Metadata map[string]any `json:"metadata,omitempty"`
	// TraceContext is the W3C trace context (see InboundMessage) of the
	// work that made the message; the channel's send joins that trace.
	TraceContext map[string]string `json:"trace_context,omitempty"`
	// Thread is the thread the message belongs to (the agent loop copies
	// that of the message it answers): logs name it.
	Thread string `json:"thread,omitempty"`
	// Failure, when set, says that the work the message answers failed,
	// and why (the agent loop sets it when a turn failed; Content is then
	// what a person is told). A channel that carries tasks fails the task
	// the message answers with this reason; others ignore it.
	Failure string `json:"failure,omitempty"`
	// Sent, when set, is told how delivering the message ended: nil once
	// the channel's Send succeeded, else why it was given up. The agent
	// loop uses it to finish the inbound message the answer answers. It is
	// never serialised.
	Sent func(err error) `json:"-"`
}

// Settle reports the end of the message's delivery to Sent, if set.
func (m OutboundMessage) Settle(err error) {
	if m.Sent != nil {
		m.Sent(err)
	}
}
