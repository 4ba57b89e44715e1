package feishustub

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Event is the part of a Feishu event callback the stub reads: either the
// url_verification handshake or an im.message.receive_v1 event.
type Event struct {
	// Handshake fields.
	Type      string `json:"type"`
	Challenge string `json:"challenge"`
	Token     string `json:"token"`

	Schema string      `json:"schema"`
	Header EventHeader `json:"header"`
	Event  struct {
		Sender struct {
			SenderID struct {
				OpenID  string `json:"open_id"`
				UserID  string `json:"user_id"`
				UnionID string `json:"union_id"`
			} `json:"sender_id"`
			SenderType string `json:"sender_type"`
		} `json:"sender"`
		Message struct {
			MessageID   string `json:"message_id"`
			ChatID      string `json:"chat_id"`
			ChatType    string `json:"chat_type"`
			MessageType string `json:"message_type"`
			Content     string `json:"content"` // JSON text: {"text":"..."}
			CreateTime  string `json:"create_time"`
		} `json:"message"`
	} `json:"event"`
}

// EventHeader is the header of a schema 2.0 event.
type EventHeader struct {
	EventID    string `json:"event_id"`
	EventType  string `json:"event_type"`
	CreateTime string `json:"create_time"`
	Token      string `json:"token"`
	AppID      string `json:"app_id"`
}

// EventTypeMessage is the only event type the stub handles.
const EventTypeMessage = "im.message.receive_v1"

var errBadEvent = errors.New("bad event")

// text returns the message text of a message event, checking the fields a
// reply needs.
func (e *Event) text() (string, error) {
	m := e.Event.Message
	switch {
	case e.Header.EventType != EventTypeMessage:
		return "", fmt.Errorf("%w: event_type %q not supported (want %s)", errBadEvent, e.Header.EventType, EventTypeMessage)
	case m.ChatID == "":
		return "", fmt.Errorf("%w: event.message.chat_id missing", errBadEvent)
	case e.Event.Sender.SenderID.OpenID == "":
		return "", fmt.Errorf("%w: event.sender.sender_id.open_id missing", errBadEvent)
	case m.MessageType != "text":
		return "", fmt.Errorf("%w: message_type %q not supported (want text)", errBadEvent, m.MessageType)
	}
	var body struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(m.Content), &body); err != nil {
		return "", fmt.Errorf("%w: event.message.content is not {\"text\":...}: %v", errBadEvent, err)
	}
	if body.Text == "" {
		return "", fmt.Errorf("%w: empty text", errBadEvent)
	}
	return body.Text, nil
}
