package slackfake

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/slack-go/slack/slacktest"
)

// routes replaces slacktest's handlers of the calls a Socket Mode bot
// makes, and adds the Socket Mode WebSocket and the files.
func (s *Server) routes(c slacktest.Customize) {
	c.Handle("/auth.test", s.authTest)
	c.Handle("/apps.connections.open", s.open)
	c.Handle("/chat.postMessage", s.postMessage)
	c.Handle("/reactions.add", s.reaction(false))
	c.Handle("/reactions.remove", s.reaction(true))
	c.Handle("/files-pri/", s.file)
	c.Handle("/signin", signin)
	c.Handle("/socket-mode", s.serveSocket)
}

// authTest answers who the bot token belongs to.
func (s *Server) authTest(w http.ResponseWriter, r *http.Request) {
	if !s.checkBot(w, r, CallAuthTest) {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "url": "https://fake.slack.com/", "team": "Fake Team",
		"user": "fakebot", "team_id": "T0TEAM", "user_id": s.opts.BotUserID, "bot_id": "B0BOT"})
}

// open answers apps.connections.open, called with the app-level token:
// the URL of a Socket Mode WebSocket.
func (s *Server) open(w http.ResponseWriter, r *http.Request) {
	if f, ok := s.takeFailure(CallOpen); ok {
		fail(w, f)
		return
	}
	switch tok := token(r); {
	case tok == s.opts.AppToken:
	case strings.HasPrefix(tok, "xoxb-"):
		fail(w, Failure{Error: "not_allowed_token_type"})
		return
	default:
		fail(w, Failure{Error: "invalid_auth"})
		return
	}
	s.mu.Lock()
	s.opened++
	ticket := s.opened
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"ok": true,
		"url": "ws://" + s.st.ServerAddr + "/socket-mode?ticket=" + strconv.Itoa(ticket)})
}

// postMessage records a message the bot posts.
func (s *Server) postMessage(w http.ResponseWriter, r *http.Request) {
	if !s.checkBot(w, r, CallPostMessage) {
		return
	}
	m := Message{Channel: r.FormValue("channel"), ThreadTS: r.FormValue("thread_ts"), Text: r.FormValue("text")}
	switch {
	case m.Channel == "":
		fail(w, Failure{Error: "channel_not_found"})
		return
	case m.Text == "" && r.FormValue("blocks") == "":
		fail(w, Failure{Error: "no_text"})
		return
	}
	m.TS = s.nextTS()
	s.mu.Lock()
	s.messages = append(s.messages, m)
	s.mu.Notify()
	s.mu.Unlock()
	msg := map[string]any{"type": "message", "text": m.Text, "user": s.opts.BotUserID, "bot_id": "B0BOT", "ts": m.TS}
	if m.ThreadTS != "" {
		msg["thread_ts"] = m.ThreadTS
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": m.Channel, "ts": m.TS, "message": msg})
}

// reaction records a reaction added (or removed); adding one that is
// there is already_reacted, removing one that is not no_reaction, as in
// Slack.
func (s *Server) reaction(remove bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.checkBot(w, r, CallReaction) {
			return
		}
		rx := Reaction{Channel: r.FormValue("channel"), TS: r.FormValue("timestamp"), Name: r.FormValue("name"), Removed: remove}
		if rx.Channel == "" || rx.TS == "" || rx.Name == "" {
			fail(w, Failure{Error: "invalid_arguments"})
			return
		}
		s.mu.Lock()
		present := false
		for _, x := range s.reactions {
			if x.Channel == rx.Channel && x.TS == rx.TS && x.Name == rx.Name {
				present = !x.Removed
			}
		}
		if present != remove {
			s.mu.Unlock()
			fail(w, Failure{Error: map[bool]string{false: "already_reacted", true: "no_reaction"}[remove]})
			return
		}
		s.reactions = append(s.reactions, rx)
		s.mu.Notify()
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"ok": true})
	}
}

// file serves a file's url_private to the bot token. Without it, Slack
// redirects to its sign-in page; so does the fake.
func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	if token(r) != s.opts.BotToken {
		http.Redirect(w, r, "/signin?redir="+url.QueryEscape(r.URL.Path), http.StatusFound)
		return
	}
	if f, ok := s.takeFailure(CallFile); ok {
		fail(w, f)
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, "/files-pri/T0TEAM-")
	id, _, _ := strings.Cut(rest, "/")
	s.mu.Lock()
	f, ok := s.files[id]
	s.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", f.Mimetype)
	_, _ = w.Write(f.Data)
}

// signin is Slack's sign-in page, where a file download without the
// right token ends.
func signin(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	_, _ = w.Write([]byte("<!doctype html><title>Sign in to Slack</title>"))
}

// checkBot answers a call that wants the bot token: an injected failure,
// or a refusal of any other token; it reports whether the call goes on.
func (s *Server) checkBot(w http.ResponseWriter, r *http.Request, call string) bool {
	switch tok := token(r); {
	case tok == s.opts.BotToken:
	case strings.HasPrefix(tok, "xapp-"):
		fail(w, Failure{Error: "not_allowed_token_type"})
		return false
	case tok == "":
		fail(w, Failure{Error: "not_authed"})
		return false
	default:
		fail(w, Failure{Error: "invalid_auth"})
		return false
	}
	if f, ok := s.takeFailure(call); ok {
		fail(w, f)
		return false
	}
	return true
}

// fail answers with a failure.
func fail(w http.ResponseWriter, f Failure) {
	if f.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
	}
	status := f.Status
	if status == 0 {
		status = http.StatusOK
	}
	body := map[string]any{"ok": false, "error": f.Error}
	if f.Needed != "" {
		body["needed"], body["provided"] = f.Needed, "chat:write"
	}
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
