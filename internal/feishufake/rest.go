package feishufake

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
)

// Message is a message the bot sent: a reply (ReplyTo set) or a new one.
type Message struct {
	ID            string // the id the server gave it
	ReplyTo       string // the message it answers (the reply API), "" for a new message
	ChatID        string // the chat it went to, when known: the receive id, or the chat of the message answered
	ReceiveIDType string // for a new message: chat_id, open_id, ...
	MsgType       string // text, post, interactive, image, file, ...
	Content       string // the content JSON as sent
	InThread      bool   // reply_in_thread
	UUID          string // the send's deduplication key
}

// Text returns the readable text of the message: a text message's text,
// an interactive card's markdown, a post's text elements.
func (m Message) Text() string {
	var c struct {
		Text     string `json:"text"`
		Elements []struct {
			Tag     string `json:"tag"`
			Content string `json:"content"`
		} `json:"elements"`
		ZhCn *struct {
			Content [][]struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"zh_cn"`
	}
	if json.Unmarshal([]byte(m.Content), &c) != nil {
		return m.Content
	}
	out := c.Text
	for _, e := range c.Elements {
		out += e.Content
	}
	if c.ZhCn != nil {
		for _, row := range c.ZhCn.Content {
			for _, e := range row {
				out += e.Text
			}
		}
	}
	return out
}

// Reaction is a reaction the bot added to a message, or deleted.
type Reaction struct {
	MessageID  string
	ReactionID string
	Emoji      string // set when added
	Deleted    bool
}

func (s *Server) routes(mux *http.ServeMux) {
	mux.HandleFunc("POST /open-apis/auth/v3/tenant_access_token/internal", s.token)
	mux.HandleFunc("GET /open-apis/bot/v3/info", s.authed(CallBotInfo, s.botInfo))
	mux.HandleFunc("POST /open-apis/im/v1/messages/{id}/reply", s.authed(CallReply, s.reply))
	mux.HandleFunc("POST /open-apis/im/v1/messages", s.authed(CallCreate, s.create))
	mux.HandleFunc("GET /open-apis/im/v1/messages/{id}/resources/{key}", s.authed(CallResource, s.resource))
	mux.HandleFunc("POST /open-apis/im/v1/messages/{id}/reactions", s.authed(CallReaction, s.addReaction))
	mux.HandleFunc("DELETE /open-apis/im/v1/messages/{id}/reactions/{rid}", s.authed(CallReaction, s.deleteReaction))
	mux.HandleFunc("POST /callback/ws/endpoint", s.endpoint)
	mux.HandleFunc("GET /ws", s.serveWS)
}

// token issues "t-<app id>" for the right credentials. The token is the
// same every time, as the SDK keeps tokens in a cache of its process.
func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if f, ok := s.takeFailure(CallToken); ok {
		fail(w, f)
		return
	}
	var body struct {
		AppID     string `json:"app_id"`
		AppSecret string `json:"app_secret"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": 9499, "msg": "bad request"})
		return
	}
	if body.AppID != s.opts.AppID || body.AppSecret != s.opts.AppSecret {
		writeJSON(w, http.StatusOK, map[string]any{"code": 10014, "msg": "app secret invalid"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "ok", "expire": 7200,
		"tenant_access_token": "t-" + s.opts.AppID})
}

// authed checks the tenant access token and the failures injected for
// call before h.
func (s *Server) authed(call string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t-"+s.opts.AppID {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"code": 99991663, "msg": "Invalid access token for authorization."})
			return
		}
		if f, ok := s.takeFailure(call); ok {
			fail(w, f)
			return
		}
		h(w, r)
	}
}

func (s *Server) botInfo(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "ok",
		"bot": map[string]any{"open_id": s.opts.BotOpenID, "app_name": "fake bot", "activate_status": 2}})
}

// sendBody is the body of a create or reply call.
type sendBody struct {
	ReceiveID     string `json:"receive_id"`
	MsgType       string `json:"msg_type"`
	Content       string `json:"content"`
	ReplyInThread bool   `json:"reply_in_thread"`
	UUID          string `json:"uuid"`
}

func (s *Server) reply(w http.ResponseWriter, r *http.Request) {
	var b sendBody
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.MsgType == "" || !json.Valid([]byte(b.Content)) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": 230001, "msg": "invalid message content"})
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	chat := s.chats[id]
	s.mu.Unlock()
	s.record(w, Message{ReplyTo: id, ChatID: chat, MsgType: b.MsgType, Content: b.Content,
		InThread: b.ReplyInThread, UUID: b.UUID})
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	var b sendBody
	idType := r.URL.Query().Get("receive_id_type")
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.MsgType == "" || b.ReceiveID == "" ||
		idType == "" || !json.Valid([]byte(b.Content)) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": 230001, "msg": "invalid request"})
		return
	}
	s.record(w, Message{ChatID: b.ReceiveID, ReceiveIDType: idType, MsgType: b.MsgType, Content: b.Content, UUID: b.UUID})
}

// record keeps m (unless its uuid was sent already) and answers with its id.
func (s *Server) record(w http.ResponseWriter, m Message) {
	s.mu.Lock()
	if prev, dup := s.uuids[m.UUID]; dup && m.UUID != "" {
		s.dupes++
		s.mu.Notify()
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "success", "data": map[string]any{"message_id": prev.ID}})
		return
	}
	s.seq++
	m.ID = "om_sent_" + strconv.Itoa(s.seq)
	s.messages = append(s.messages, m)
	if m.UUID != "" {
		s.uuids[m.UUID] = m
	}
	s.mu.Notify()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "success",
		"data": map[string]any{"message_id": m.ID, "chat_id": m.ChatID, "msg_type": m.MsgType}})
}

func (s *Server) resource(w http.ResponseWriter, r *http.Request) {
	typ := r.URL.Query().Get("type")
	if typ != "image" && typ != "file" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": 234001, "msg": "invalid type, want image or file"})
		return
	}
	s.mu.Lock()
	res, ok := s.resources[r.PathValue("id")+"/"+r.PathValue("key")]
	s.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": 234003, "msg": "file not found"})
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	if res.name != "" {
		w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": res.name}))
	}
	_, _ = w.Write(res.data)
}

func (s *Server) addReaction(w http.ResponseWriter, r *http.Request) {
	var b struct {
		ReactionType struct {
			EmojiType string `json:"emoji_type"`
		} `json:"reaction_type"`
	}
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.ReactionType.EmojiType == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": 231001, "msg": "reaction type is invalid"})
		return
	}
	s.mu.Lock()
	s.seq++
	rx := Reaction{MessageID: r.PathValue("id"), ReactionID: "rx_" + strconv.Itoa(s.seq), Emoji: b.ReactionType.EmojiType}
	s.reactions = append(s.reactions, rx)
	s.mu.Notify()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "success", "data": map[string]any{
		"reaction_id": rx.ReactionID, "reaction_type": map[string]any{"emoji_type": rx.Emoji}}})
}

func (s *Server) deleteReaction(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.reactions = append(s.reactions, Reaction{MessageID: r.PathValue("id"), ReactionID: r.PathValue("rid"), Deleted: true})
	s.mu.Notify()
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "success", "data": map[string]any{"reaction_id": r.PathValue("rid")}})
}

// fail answers with an injected failure.
func fail(w http.ResponseWriter, f Failure) {
	for k, vs := range f.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	status := f.Status
	if status == 0 {
		status = http.StatusOK
	}
	msg := f.Msg
	if msg == "" {
		msg = fmt.Sprintf("injected failure %d", f.Code)
	}
	writeJSON(w, status, map[string]any{"code": f.Code, "msg": msg})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
