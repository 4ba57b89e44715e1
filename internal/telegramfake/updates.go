package telegramfake

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// maxPollTimeout caps the wait of a long poll, as Telegram does (50 s).
const maxPollTimeout = 50

// update is one update pushed: its id and its JSON.
type update struct {
	id   int64
	kind string // "message", "edited_message", ...
	data map[string]any
}

// User is a Telegram user, as updates name senders.
type User struct {
	ID        int64
	Username  string // without "@"
	FirstName string // default "User <id>"
	IsBot     bool
}

// Incoming is a message a user sends the bot. Zero fields take defaults:
// ChatID is From.ID (a private chat), ChatType "private" (or
// "supergroup" for a negative ChatID), MessageID the chat's next id, Date
// now.
type Incoming struct {
	ChatID    int64
	ChatType  string // private, group, supergroup, channel
	IsForum   bool
	From      User
	MessageID int
	ThreadID  int // a forum topic's message_thread_id
	Date      time.Time

	Text     string
	Caption  string
	Entities []Entity // of Text (or of Caption, with media)

	// Photo, Document, Voice name a file added with AddFile: the message
	// carries it as a photo, a document or a voice note.
	Photo, Document, Voice string

	Location *Location
	// ReplyTo is the message this one answers.
	ReplyTo *Incoming
}

// Location is a shared location.
type Location struct{ Latitude, Longitude float64 }

// Push sends the bot a message: it becomes the next update, returned by
// getUpdates until the bot confirms it. It returns the update's id and
// the message's id.
func (s *Server) Push(m Incoming) (updateID int64, messageID int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	msg := s.messageLocked(&m)
	s.chats[m.ChatID] = append(s.chats[m.ChatID], m.MessageID)
	return s.pushLocked("message", msg), m.MessageID
}

// PushUpdate sends the bot an update of another kind ("edited_message",
// "callback_query", ...) with the given content; it returns its id.
func (s *Server) PushUpdate(kind string, content map[string]any) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pushLocked(kind, content)
}

func (s *Server) pushLocked(kind string, content any) int64 {
	id := s.nextID
	s.nextID++
	s.updates = append(s.updates, update{id: id, kind: kind, data: map[string]any{"update_id": id, kind: content}})
	s.mu.Notify()
	return id
}

// Update returns the JSON of update id as Telegram sends it (to a
// webhook, in getUpdates), or nil.
func (s *Server) Update(id int64) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.updates {
		if u.id == id {
			data, _ := json.Marshal(u.data)
			return data
		}
	}
	return nil
}

// Redeliver forgets that the updates from id on were confirmed, as when
// the bot stopped before its next getUpdates told Telegram it had them:
// a getUpdates with an offset at or below id returns them again.
func (s *Server) Redeliver(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.confirmed = min(s.confirmed, id)
	s.mu.Notify()
}

// Confirmed returns the offset Telegram has from the bot: the updates
// below it are confirmed.
func (s *Server) Confirmed() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.confirmed
}

// WaitConfirmed waits until the updates below offset are confirmed.
func (s *Server) WaitConfirmed(ctx context.Context, offset int64) error {
	return s.mu.Wait(ctx, func() bool { return s.confirmed >= offset })
}

// Polls returns how many getUpdates calls returned.
func (s *Server) Polls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.polls
}

// WaitPolls waits until n getUpdates calls returned.
func (s *Server) WaitPolls(ctx context.Context, n int) error {
	return s.mu.Wait(ctx, func() bool { return s.polls >= n })
}

// getUpdates answers getUpdates: a positive offset confirms the updates
// below it; the updates from there on (at most limit, of the kinds
// allowed) are returned, waiting up to timeout seconds for one.
func (s *Server) getUpdates(w http.ResponseWriter, r *http.Request, p params) {
	offset, err1 := p.int("offset")
	limit, err2 := p.int("limit")
	timeout, err3 := p.int("timeout")
	for _, err := range []error{err1, err2, err3} {
		if err != nil {
			apiError(w, http.StatusBadRequest, "Bad Request: "+err.Error())
			return
		}
	}
	if limit <= 0 || limit > 100 {
		limit = 100
	}
	var allowed []string
	if raw := p["allowed_updates"]; raw != "" && json.Unmarshal([]byte(raw), &allowed) != nil {
		apiError(w, http.StatusBadRequest, "Bad Request: can't parse allowed updates")
		return
	}
	if s.Webhook().URL != "" {
		apiError(w, http.StatusConflict, "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first")
		return
	}
	ctx := r.Context()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(min(timeout, maxPollTimeout))*time.Second)
		defer cancel()
	}
	s.mu.Lock()
	if offset > s.confirmed {
		s.confirmed = offset
		s.mu.Notify()
	}
	s.mu.Unlock()
	var out []map[string]any
	_ = s.mu.Wait(ctx, func() bool {
		out = out[:0]
		for _, u := range s.updates {
			if u.id >= s.confirmed && (len(allowed) == 0 || slices.Contains(allowed, u.kind)) && len(out) < int(limit) {
				out = append(out, u.data)
			}
		}
		return len(out) > 0 || timeout <= 0
	})
	if r.Context().Err() != nil {
		return // the bot went away: nothing was returned
	}
	s.mu.Lock()
	s.polls++
	s.mu.Notify()
	s.mu.Unlock()
	if out == nil {
		out = []map[string]any{}
	}
	ok(w, out)
}

// messageLocked fills m's defaults and returns it as the JSON of a
// message; s.mu is held.
func (s *Server) messageLocked(m *Incoming) map[string]any {
	if m.ChatID == 0 {
		m.ChatID = m.From.ID
	}
	if m.ChatType == "" {
		m.ChatType = "private"
		if m.ChatID < 0 {
			m.ChatType = "supergroup"
		}
	}
	if m.MessageID == 0 {
		s.msgSeq++
		m.MessageID = 1000 + s.msgSeq
	}
	if m.Date.IsZero() {
		m.Date = time.Now()
	}
	chat := map[string]any{"id": m.ChatID, "type": m.ChatType}
	if m.ChatType != "private" {
		chat["title"] = "a group"
	}
	if m.IsForum {
		chat["is_forum"] = true
	}
	msg := map[string]any{"message_id": m.MessageID, "date": m.Date.Unix(), "chat": chat, "from": userJSON(m.From)}
	if m.ThreadID != 0 {
		msg["message_thread_id"] = m.ThreadID
		msg["is_topic_message"] = true
	}
	media := m.Photo != "" || m.Document != "" || m.Voice != ""
	text, textKey, entKey := m.Text, "text", "entities"
	if media {
		text, textKey, entKey = m.Caption, "caption", "caption_entities"
	}
	if text != "" {
		msg[textKey] = text
	}
	if len(m.Entities) > 0 {
		msg[entKey] = m.Entities
	}
	if m.Photo != "" {
		f := s.files[m.Photo]
		msg["photo"] = []map[string]any{
			{"file_id": m.Photo + "-small", "file_unique_id": f.unique + "s", "width": 90, "height": 90, "file_size": 100},
			{"file_id": m.Photo, "file_unique_id": f.unique, "width": 800, "height": 600, "file_size": len(f.data)},
		}
	}
	if m.Document != "" {
		f := s.files[m.Document]
		msg["document"] = map[string]any{"file_id": m.Document, "file_unique_id": f.unique, "file_name": f.name,
			"mime_type": f.mime, "file_size": len(f.data)}
	}
	if m.Voice != "" {
		f := s.files[m.Voice]
		msg["voice"] = map[string]any{"file_id": m.Voice, "file_unique_id": f.unique, "duration": 3,
			"mime_type": "audio/ogg", "file_size": len(f.data)}
	}
	if m.Location != nil {
		msg["location"] = map[string]any{"latitude": m.Location.Latitude, "longitude": m.Location.Longitude}
	}
	if m.ReplyTo != nil {
		r := *m.ReplyTo
		if r.ChatID == 0 {
			r.ChatID = m.ChatID
			r.ChatType = m.ChatType
		}
		msg["reply_to_message"] = s.messageLocked(&r)
	}
	return msg
}

// userJSON returns u as the JSON of a user.
func userJSON(u User) map[string]any {
	name := u.FirstName
	if name == "" {
		name = "User " + strconv.FormatInt(u.ID, 10)
	}
	out := map[string]any{"id": u.ID, "is_bot": u.IsBot, "first_name": name}
	if u.Username != "" {
		out["username"] = u.Username
	}
	return out
}
