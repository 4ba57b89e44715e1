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
}
