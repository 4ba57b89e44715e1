package feishufake

import (
	"encoding/json"
	"strconv"
	"time"
)

// Event is an im.message.receive_v1 event: a message a user sent the bot.
// Zero fields take the defaults named.
type Event struct {
	EventID    string // default "ev_" + MessageID
	MessageID  string // required
	ChatID     string // default "oc_chat"
	ChatType   string // p2p (default), group, topic_group
	Sender     string // the sender's open_id (default "ou_user")
	SenderType string // user (default), bot
	MsgType    string // text (default), post, image, file, audio, media, sticker, ...
	Content    string // the content JSON (Text, Post, Image, File build it)
	Mentions   []Mention
	RootID     string
	ParentID   string
	ThreadID   string
	CreateTime time.Time // default now
}

// Mention is a user @-mentioned in a message; its Key ("@_user_1") stands
// for it in the text.
type Mention struct {
	Key    string
	OpenID string
	UserID string
	Name   string
}

// Text is the content of a text message.
func Text(s string) string { return mustJSON(map[string]string{"text": s}) }

// Image is the content of an image message.
func Image(imageKey string) string { return mustJSON(map[string]string{"image_key": imageKey}) }

// File is the content of a file message (audio and media have the same).
func File(fileKey, fileName string) string {
	return mustJSON(map[string]string{"file_key": fileKey, "file_name": fileName})
}

// PostElement is one element of a rich-text post: {"tag":"text","text":..},
// {"tag":"a","text":..,"href":..}, {"tag":"at","user_id":..,"user_name":..},
// {"tag":"img","image_key":..}.
type PostElement map[string]string

// Post is the content of a post (rich text) message with a title and
// rows of elements, in the shape Feishu sends in events.
func Post(title string, rows ...[]PostElement) string {
	return mustJSON(map[string]any{"title": title, "content": rows})
}

// Payload returns the event as Feishu sends it: schema 2.0 JSON, with
// token as the header's verification token.
func (e Event) Payload(token string) []byte {
	if e.EventID == "" {
		e.EventID = "ev_" + e.MessageID
	}
	if e.ChatID == "" {
		e.ChatID = "oc_chat"
	}
	if e.ChatType == "" {
		e.ChatType = "p2p"
	}
	if e.Sender == "" {
		e.Sender = "ou_user"
	}
	if e.SenderType == "" {
		e.SenderType = "user"
	}
	if e.MsgType == "" {
		e.MsgType = "text"
	}
	if e.CreateTime.IsZero() {
		e.CreateTime = time.Now()
	}
	created := strconv.FormatInt(e.CreateTime.UnixMilli(), 10)
	mentions := make([]map[string]any, 0, len(e.Mentions))
	for _, m := range e.Mentions {
		mentions = append(mentions, map[string]any{"key": m.Key, "name": m.Name,
			"id": map[string]string{"open_id": m.OpenID, "user_id": m.UserID}})
	}
	msg := map[string]any{"message_id": e.MessageID, "chat_id": e.ChatID, "chat_type": e.ChatType,
		"message_type": e.MsgType, "content": e.Content, "create_time": created, "mentions": mentions}
	for k, v := range map[string]string{"root_id": e.RootID, "parent_id": e.ParentID, "thread_id": e.ThreadID} {
		if v != "" {
			msg[k] = v
		}
	}
	return []byte(mustJSON(map[string]any{
		"schema": "2.0",
		"header": map[string]string{"event_id": e.EventID, "event_type": "im.message.receive_v1",
			"create_time": created, "token": token, "app_id": "cli_fake", "tenant_key": "tenant"},
		"event": map[string]any{
			"sender": map[string]any{"sender_id": map[string]string{"open_id": e.Sender},
				"sender_type": e.SenderType, "tenant_key": "tenant"},
			"message": msg,
		},
	}))
}

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}
