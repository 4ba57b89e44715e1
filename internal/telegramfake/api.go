package telegramfake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// maxBody caps a request's body (a document upload is the largest).
const maxBody = 60 << 20

// serveMethod answers /bot<token>/<method>.
func (s *Server) serveMethod(w http.ResponseWriter, r *http.Request) {
	method := r.PathValue("method")
	s.mu.Lock()
	s.calls[method]++
	s.mu.Notify()
	s.mu.Unlock()
	if r.PathValue("token") != s.Token() {
		apiError(w, http.StatusUnauthorized, "Unauthorized")
		return
	}
	p, err := readParams(r)
	if err != nil {
		apiError(w, http.StatusBadRequest, "Bad Request: "+err.Error())
		return
	}
	if f, ok := s.takeFailure(method); ok {
		fail(w, f)
		return
	}
	switch method {
	case "getMe":
		ok(w, map[string]any{"id": s.opts.BotID, "is_bot": true, "first_name": "Fake Bot", "username": s.opts.BotUsername,
			"can_join_groups": true, "can_read_all_group_messages": false, "supports_inline_queries": false})
	case "getUpdates":
		s.getUpdates(w, r, p)
	case "sendMessage":
		s.sendMessage(w, p)
	case "sendPhoto", "sendDocument", "sendVoice", "sendAudio", "sendVideo":
		s.sendFile(w, r, p, strings.ToLower(strings.TrimPrefix(method, "send")))
	case "sendChatAction":
		s.sendChatAction(w, p)
	case "setMessageReaction":
		s.setMessageReaction(w, p)
	case "getFile":
		s.getFile(w, p)
	case "setWebhook":
		s.setWebhook(w, p)
	case "deleteWebhook":
		s.mu.Lock()
		s.webhook = Webhook{}
		s.mu.Notify()
		s.mu.Unlock()
		ok(w, true)
	case "getWebhookInfo":
		wh := s.Webhook()
		ok(w, map[string]any{"url": wh.URL, "has_custom_certificate": false, "pending_update_count": 0,
			"max_connections": wh.MaxConnections, "allowed_updates": wh.AllowedUpdates})
	default:
		apiError(w, http.StatusNotFound, "Not Found")
	}
}

// params are a call's parameters: each a string, as a form gives them (a
// JSON body's objects and lists are kept as their JSON).
type params map[string]string

// readParams reads the parameters of a call from its query and its body:
// a form, a multipart form (the files of which are ignored) or JSON.
func readParams(r *http.Request) (params, error) {
	p := params{}
	for k, v := range r.URL.Query() {
		p[k] = v[0]
	}
	if r.Body == nil {
		return p, nil
	}
	data, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil || len(data) == 0 {
		return p, err // a call without parameters (the library sends an empty form)
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "application/json":
		var body map[string]json.RawMessage
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			return nil, fmt.Errorf("can't parse JSON: %v", err)
		}
		for k, raw := range body {
			var str string
			if json.Unmarshal(raw, &str) == nil {
				p[k] = str
			} else {
				p[k] = string(raw)
			}
		}
	case "multipart/form-data":
		if err := r.ParseMultipartForm(maxBody); err != nil {
			return nil, fmt.Errorf("can't parse multipart form: %v", err)
		}
		for k, v := range r.MultipartForm.Value {
			p[k] = v[0]
		}
	case "application/x-www-form-urlencoded":
		if err := r.ParseForm(); err != nil {
			return nil, fmt.Errorf("can't parse form: %v", err)
		}
		for k, v := range r.PostForm {
			p[k] = v[0]
		}
	}
	return p, nil
}

// int returns parameter k as a number (0 when absent).
func (p params) int(k string) (int64, error) {
	v, ok := p[k]
	if !ok || v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("field %q must be a number", k)
	}
	return n, nil
}

// chatID returns parameter chat_id, which must be a number here.
func (p params) chatID() (int64, error) {
	if p["chat_id"] == "" {
		return 0, fmt.Errorf("chat_id is empty")
	}
	id, err := p.int("chat_id")
	if err != nil {
		return 0, fmt.Errorf("chat not found")
	}
	return id, nil
}

func (s *Server) sendChatAction(w http.ResponseWriter, p params) {
	chat, err := p.chatID()
	if err != nil {
		apiError(w, http.StatusBadRequest, "Bad Request: "+err.Error())
		return
	}
	thread, _ := p.int("message_thread_id")
	switch p["action"] {
	case "typing", "upload_photo", "record_video", "upload_video", "record_voice", "upload_voice",
		"upload_document", "choose_sticker", "find_location", "record_video_note", "upload_video_note":
	default:
		apiError(w, http.StatusBadRequest, "Bad Request: wrong parameter action in request")
		return
	}
	s.mu.Lock()
	s.actions = append(s.actions, ChatAction{ChatID: chat, ThreadID: int(thread), Action: p["action"]})
	s.mu.Notify()
	s.mu.Unlock()
	ok(w, true)
}

func (s *Server) setMessageReaction(w http.ResponseWriter, p params) {
	chat, err := p.chatID()
	if err != nil {
		apiError(w, http.StatusBadRequest, "Bad Request: "+err.Error())
		return
	}
	msg, _ := p.int("message_id")
	var reactions []struct {
		Type  string `json:"type"`
		Emoji string `json:"emoji"`
	}
	if raw := p["reaction"]; raw != "" {
		if err := json.Unmarshal([]byte(raw), &reactions); err != nil {
			apiError(w, http.StatusBadRequest, "Bad Request: can't parse reaction types JSON object")
			return
		}
	}
	r := Reaction{ChatID: chat, MessageID: int(msg)}
	if len(reactions) > 0 {
		if reactions[0].Type != "emoji" || reactions[0].Emoji == "" {
			apiError(w, http.StatusBadRequest, "Bad Request: REACTION_INVALID")
			return
		}
		r.Emoji = reactions[0].Emoji
	}
	s.mu.Lock()
	s.reactions = append(s.reactions, r)
	s.mu.Notify()
	s.mu.Unlock()
	ok(w, true)
}

func (s *Server) setWebhook(w http.ResponseWriter, p params) {
	u, err := url.Parse(p["url"])
	if p["url"] != "" && (err != nil || u.Scheme != "https" || u.Host == "") {
		apiError(w, http.StatusBadRequest, "Bad Request: bad webhook: An HTTPS URL must be provided for webhook")
		return
	}
	secret := p["secret_token"]
	if len(secret) > 256 || strings.Trim(secret, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
		apiError(w, http.StatusBadRequest, "Bad Request: secret token contains unallowed characters")
		return
	}
	maxConn, _ := p.int("max_connections")
	var allowed []string
	if raw := p["allowed_updates"]; raw != "" {
		_ = json.Unmarshal([]byte(raw), &allowed)
	}
	s.mu.Lock()
	s.webhook = Webhook{URL: p["url"], SecretToken: secret, MaxConnections: int(maxConn), AllowedUpdates: allowed}
	s.mu.Notify()
	s.mu.Unlock()
	ok(w, true)
}

// fail answers with an injected failure.
func fail(w http.ResponseWriter, f Failure) {
	code := f.Code
	if code == 0 {
		code = http.StatusInternalServerError
	}
	desc := f.Description
	if desc == "" {
		switch code {
		case http.StatusTooManyRequests:
			desc = "Too Many Requests: retry after " + strconv.Itoa(f.RetryAfter)
		case http.StatusBadRequest:
			desc = "Bad Request"
		default:
			desc = http.StatusText(code)
		}
	}
	body := map[string]any{"ok": false, "error_code": code, "description": desc}
	switch {
	case code == http.StatusTooManyRequests:
		body["parameters"] = map[string]any{"retry_after": f.RetryAfter}
	case f.MigrateTo != 0:
		body["parameters"] = map[string]any{"migrate_to_chat_id": f.MigrateTo}
	}
	writeJSON(w, code, body)
}

// ok answers with a result.
func ok(w http.ResponseWriter, result any) {
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": result})
}

// apiError answers as Telegram does when a call fails.
func apiError(w http.ResponseWriter, code int, desc string) {
	writeJSON(w, code, map[string]any{"ok": false, "error_code": code, "description": desc})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
