package telegramfake

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxMessageLength is Telegram's cap on a message's text once its
// entities are parsed, in UTF-16 code units.
const MaxMessageLength = 4096

// Message is a message the bot sent.
type Message struct {
	ID        int    // the id the server gave it
	ChatID    int64  // the chat it went to
	ThreadID  int    // message_thread_id (a forum topic), 0 for none
	ReplyTo   int    // the message it answers (reply_parameters), 0 for none
	Text      string // the text shown, entities parsed
	Raw       string // the text as sent (HTML markup and all)
	ParseMode string // "HTML", or "" for plain text
	Entities  []Entity
	// Kind is "text" for sendMessage, or the file's kind: photo,
	// document, voice, audio, video; FileName and File are then the file
	// uploaded.
	Kind     string
	FileName string
	File     []byte
}

// HasEntity reports whether the message has an entity of type typ over
// exactly the shown text sub.
func (m Message) HasEntity(typ, sub string) bool {
	u := []rune(m.Text)
	for _, e := range m.Entities {
		if e.Type == typ && entityText(u, e) == sub {
			return true
		}
	}
	return false
}

// entityText returns the text an entity covers (offsets in UTF-16 units).
func entityText(text []rune, e Entity) string {
	var b strings.Builder
	pos := 0
	for _, r := range text {
		n := 1
		if r > 0xFFFF {
			n = 2
		}
		if pos >= e.Offset && pos+n <= e.Offset+e.Length {
			b.WriteRune(r)
		}
		pos += n
	}
	return b.String()
}

// sendMessage checks a message as Telegram does and records it.
func (s *Server) sendMessage(w http.ResponseWriter, p params) {
	chat, err := p.chatID()
	if err != nil {
		apiError(w, http.StatusBadRequest, "Bad Request: "+err.Error())
		return
	}
	raw, mode := p["text"], p["parse_mode"]
	if !utf8.ValidString(raw) {
		apiError(w, http.StatusBadRequest, "Bad Request: strings must be encoded in UTF-8")
		return
	}
	text, ents := raw, []Entity(nil)
	switch strings.ToUpper(mode) {
	case "":
	case "HTML":
		if text, ents, err = ParseHTML(raw); err != nil {
			apiError(w, http.StatusBadRequest, "Bad Request: "+err.Error())
			return
		}
	default:
		apiError(w, http.StatusBadRequest, "Bad Request: parse_mode "+mode+" is not supported by the fake (HTML and plain text are)")
		return
	}
	switch {
	case strings.TrimSpace(text) == "":
		apiError(w, http.StatusBadRequest, "Bad Request: message text is empty")
		return
	case utf16Len(text) > MaxMessageLength:
		apiError(w, http.StatusBadRequest, "Bad Request: message is too long")
		return
	}
	thread, _ := p.int("message_thread_id")
	replyTo, allowWithout, err := replyParams(p)
	if err != nil {
		apiError(w, http.StatusBadRequest, "Bad Request: "+err.Error())
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.blocked[chat] {
		apiError(w, http.StatusForbidden, "Forbidden: bot was blocked by the user")
		return
	}
	if replyTo != 0 && !slices.Contains(s.chats[chat], replyTo) {
		if !allowWithout {
			apiError(w, http.StatusBadRequest, "Bad Request: message to be replied not found")
			return
		}
		replyTo = 0
	}
	s.msgSeq++
	m := Message{ID: 1000 + s.msgSeq, ChatID: chat, ThreadID: int(thread), ReplyTo: replyTo, Text: text, Raw: raw,
		ParseMode: strings.ToUpper(mode), Entities: ents, Kind: "text"}
	ok(w, s.recordLocked(m))
}

// recordLocked keeps a message the bot sent and returns its JSON; s.mu
// is held.
func (s *Server) recordLocked(m Message) map[string]any {
	s.messages = append(s.messages, m)
	s.chats[m.ChatID] = append(s.chats[m.ChatID], m.ID)
	s.mu.Notify()
	result := map[string]any{"message_id": m.ID, "date": time.Now().Unix(),
		"chat": map[string]any{"id": m.ChatID, "type": "private"},
		"from": userJSON(User{ID: s.opts.BotID, Username: s.opts.BotUsername, IsBot: true, FirstName: "Fake Bot"})}
	if m.Kind == "text" {
		result["text"] = m.Text
	}
	if len(m.Entities) > 0 {
		result["entities"] = m.Entities
	}
	return result
}

// sendFile answers sendPhoto, sendDocument, sendVoice, sendAudio and
// sendVideo: the file is uploaded in the multipart form field of its
// kind.
func (s *Server) sendFile(w http.ResponseWriter, r *http.Request, p params, kind string) {
	chat, err := p.chatID()
	if err != nil {
		apiError(w, http.StatusBadRequest, "Bad Request: "+err.Error())
		return
	}
	if r.MultipartForm == nil || len(r.MultipartForm.File[kind]) == 0 {
		apiError(w, http.StatusBadRequest, "Bad Request: there is no "+kind+" in the request")
		return
	}
	fh := r.MultipartForm.File[kind][0]
	f, err := fh.Open()
	if err != nil {
		apiError(w, http.StatusBadRequest, "Bad Request: "+err.Error())
		return
	}
	data, err := io.ReadAll(f)
	_ = f.Close()
	if err != nil || len(data) == 0 {
		apiError(w, http.StatusBadRequest, "Bad Request: file must be non-empty")
		return
	}
	thread, _ := p.int("message_thread_id")
	replyTo, _, _ := replyParams(p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.blocked[chat] {
		apiError(w, http.StatusForbidden, "Forbidden: bot was blocked by the user")
		return
	}
	s.msgSeq++
	m := Message{ID: 1000 + s.msgSeq, ChatID: chat, ThreadID: int(thread), ReplyTo: replyTo, Text: p["caption"],
		Kind: kind, FileName: fh.Filename, File: data}
	ok(w, s.recordLocked(m))
}

// replyParams reads the message a send answers: reply_parameters (an
// object) or the older reply_to_message_id.
func replyParams(p params) (id int, allowWithout bool, err error) {
	if raw := p["reply_parameters"]; raw != "" {
		var rp struct {
			MessageID                int  `json:"message_id"`
			AllowSendingWithoutReply bool `json:"allow_sending_without_reply"`
		}
		if err := json.Unmarshal([]byte(raw), &rp); err != nil {
			return 0, false, err
		}
		return rp.MessageID, rp.AllowSendingWithoutReply, nil
	}
	n, err := p.int("reply_to_message_id")
	return int(n), p["allow_sending_without_reply"] == "true", err
}
