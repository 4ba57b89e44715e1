package feishustub

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/internal/recentids"
)

// maxEventBytes caps a webhook request body.
const maxEventBytes = 1 << 20

// handleEvent takes one Feishu event: answers the url_verification
// handshake, or publishes a text message on the bus.
func (c *Channel) handleEvent(w http.ResponseWriter, r *http.Request) {
	var ev Event
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxEventBytes))
	if err := dec.Decode(&ev); err != nil {
		httpError(w, http.StatusBadRequest, fmt.Sprintf("event is not valid JSON: %v", err))
		return
	}
	token := ev.Header.Token
	if ev.Type == "url_verification" {
		token = ev.Token
	}
	if c.cfg.VerificationToken != "" && token != c.cfg.VerificationToken {
		httpError(w, http.StatusUnauthorized, "verification token does not match channels.feishu.verificationToken")
		return
	}
	if ev.Type == "url_verification" {
		writeJSON(w, http.StatusOK, map[string]string{"challenge": ev.Challenge})
		return
	}
	msg, err := ev.message()
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	if msg.ignored != "" {
		c.Logger().Info("feishu event ignored", "event_id", ev.Header.EventID, "reason", msg.ignored)
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "ignored": msg.ignored})
		return
	}
	if ev.Header.EventID != "" && !c.seen.add(ev.Header.EventID) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "duplicate": true})
		return
	}
	m := ev.Event.Message
	in := bus.InboundMessage{
		Channel:   ChannelName,
		SenderID:  ev.Event.Sender.SenderID.OpenID,
		ChatID:    m.ChatID,
		Content:   msg.text,
		Media:     msg.media,
		Metadata:  map[string]any{"message_id": m.MessageID, "chat_type": m.ChatType},
		Timestamp: time.Now().UTC(),
		ID:        m.MessageID,
	}
	if err := c.HandleMessage(r.Context(), in); err != nil {
		// Not taken in: Feishu's retry of this event must not be dropped
		// as a duplicate.
		c.seen.forget(ev.Header.EventID)
		if errors.Is(err, channels.ErrNotAllowed) {
			httpError(w, http.StatusForbidden, err.Error())
			return
		}
		httpError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true})
}

// handleReplies serves GET /feishu/replies?chat_id=X&after=N&wait=S.
func (c *Channel) handleReplies(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	chat := q.Get("chat_id")
	if chat == "" {
		httpError(w, http.StatusBadRequest, "chat_id is required")
		return
	}
	after, err := queryNumber(q.Get("after"), 0, 1<<31)
	if err != nil {
		httpError(w, http.StatusBadRequest, "after: "+err.Error())
		return
	}
	wait, err := queryNumber(q.Get("wait"), 0, 60)
	if err != nil {
		httpError(w, http.StatusBadRequest, "wait: "+err.Error())
		return
	}
	c.mu.Lock()
	out := c.out
	c.mu.Unlock()
	replies, err := out.await(r.Context(), chat, int(after), time.Duration(wait*float64(time.Second)))
	if err != nil {
		return // the client went away
	}
	writeJSON(w, http.StatusOK, map[string]any{"replies": replies, "next": int(after) + len(replies)})
}

func queryNumber(s string, lo, hi float64) (float64, error) {
	if s == "" {
		return lo, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < lo || v > hi {
		return 0, fmt.Errorf("want a number from %v to %v, got %q", lo, hi, s)
	}
	return v, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func httpError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"ok": false, "error": msg})
}

// seenEvents remembers recent event ids, because Feishu retries an event
// whose delivery it thinks failed.
type seenEvents struct {
	mu  sync.Mutex
	ids *recentids.Set
}

func newSeenEvents(size int) *seenEvents { return &seenEvents{ids: recentids.New(size)} }

// add records id and reports whether it was new.
func (s *seenEvents) add(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids.Add(id)
}

// forget drops id, so that a retry of an event that was not taken in is
// handled again.
func (s *seenEvents) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ids.Forget(id)
}

func mkdirPrivate(dir string) error { return os.MkdirAll(dir, 0o700) }
