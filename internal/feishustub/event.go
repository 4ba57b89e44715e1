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

// EventTypeMessage is the event type the stub hands to the agent; it
// answers every other event type 200 and ignores it (Feishu retries an
// event answered otherwise).
const EventTypeMessage = "im.message.receive_v1"

var errBadEvent = errors.New("bad event")

// inbound is what a message event gives the agent.
type inbound struct {
	text  string
	media []string // feishu:image/KEY, feishu:file/KEY, ...
	// ignored, when set, says why the event is taken and not handed over.
	ignored string
}

// message reads a message event: its text, and its image, file, audio or
// video as media (feishu:<type>/<key>, which the agent names in its
// answer; the stub downloads nothing). Other event types and message
// types are ignored, with the reason.
func (e *Event) message() (inbound, error) {
	m := e.Event.Message
	switch {
	case e.Header.EventType != EventTypeMessage:
		return inbound{ignored: fmt.Sprintf("event_type %q is not handled", e.Header.EventType)}, nil
	case m.ChatID == "":
		return inbound{}, fmt.Errorf("%w: event.message.chat_id missing", errBadEvent)
	case e.Event.Sender.SenderID.OpenID == "":
		return inbound{}, fmt.Errorf("%w: event.sender.sender_id.open_id missing", errBadEvent)
	}
	var body struct {
		Text     string `json:"text"`
		ImageKey string `json:"image_key"`
		FileKey  string `json:"file_key"`
		FileName string `json:"file_name"`
	}
	if err := json.Unmarshal([]byte(m.Content), &body); err != nil {
		return inbound{}, fmt.Errorf("%w: event.message.content is not a JSON object: %v", errBadEvent, err)
	}
	switch m.MessageType {
	case "text":
		if body.Text == "" {
			return inbound{}, fmt.Errorf("%w: empty text", errBadEvent)
		}
		return inbound{text: body.Text}, nil
	case "image":
		if body.ImageKey == "" {
			return inbound{}, fmt.Errorf("%w: image without image_key", errBadEvent)
		}
		return inbound{text: "[image]", media: []string{"feishu:image/" + body.ImageKey}}, nil
	case "file", "audio", "media":
		if body.FileKey == "" {
			return inbound{}, fmt.Errorf("%w: %s without file_key", errBadEvent, m.MessageType)
		}
		text := "[" + m.MessageType + "]"
		if body.FileName != "" {
			text = "[" + m.MessageType + " " + body.FileName + "]"
		}
		return inbound{text: text, media: []string{"feishu:" + m.MessageType + "/" + body.FileKey}}, nil
	}
	return inbound{ignored: fmt.Sprintf("message_type %q is not handled", m.MessageType)}, nil
}
