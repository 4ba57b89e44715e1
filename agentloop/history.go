package agentloop

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/switchboard-dev/switchboard/agent"
)

// record is one line of a history file.
type record struct {
	Time time.Time `json:"time"`
	agent.Message
}

// histories keeps the sessions' histories: in memory, and appended to one
// JSONL file per session.
type histories struct {
	dir    string
	window int
	now    func() time.Time
	log    *slog.Logger

	mu       sync.Mutex
	sessions map[string]*history
}

// history is one session's. Only the worker of its session uses it.
type history struct {
	path     string
	msgs     []agent.Message // the latest messages, at most 2*window
	base     int             // how many messages were dropped before msgs[0]
	torn     bool            // the file does not end in a newline
	loaded   bool
	capacity int
}

func newHistories(dir string, window int, now func() time.Time, log *slog.Logger) *histories {
	return &histories{dir: dir, window: window, now: now, log: log, sessions: map[string]*history{}}
}

// get returns the history of key, read from its file on first use.
func (hs *histories) get(key string) *history {
	hs.mu.Lock()
	h, ok := hs.sessions[key]
	if !ok {
		h = &history{path: filepath.Join(hs.dir, sessionFileName(key)), capacity: 2 * hs.window}
		hs.sessions[key] = h
	}
	hs.mu.Unlock()
	if !h.loaded {
		h.loaded = true
		if err := h.load(hs.log); err != nil {
			hs.log.Error("session history not loaded; continuing without it", "session", key, "err", err)
		}
	}
	return h
}

// load reads the file, skipping lines that do not decode (a torn last
// line after a crash).
func (h *history) load(log *slog.Logger) error {
	f, err := os.Open(h.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			h.torn = line[len(line)-1] != '\n'
			var rec record
			if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
				if jerr := json.Unmarshal(trimmed, &rec); jerr != nil || rec.Role == "" {
					log.Warn("skipping unreadable history line", "file", h.path, "line", n, "err", jerr)
				} else {
					h.keep(rec.Message)
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", h.path, err)
		}
	}
}

// keep adds m to the in-memory history, dropping the oldest half when full.
func (h *history) keep(msgs ...agent.Message) {
	h.msgs = append(h.msgs, msgs...)
	if len(h.msgs) > h.capacity {
		drop := len(h.msgs) - h.capacity/2
		h.base += drop
		h.msgs = append([]agent.Message(nil), h.msgs[drop:]...)
	}
}

// window returns up to n of the latest messages, starting at a user
// message so that no tool result is cut from its call. The window moves
// in steps of n/2 messages, not with every message: it starts at a
// multiple of n/2 of the messages of the conversation (counted from the
// start of its file), and so holds between n/2 and n of them. Between two
// steps every request of the conversation starts with the same messages
// after the system prompt, which a provider's prompt cache serves.
func (h *history) window(n int) []agent.Message {
	total, step := h.base+len(h.msgs), max(n/2, 1)
	first := 0 // of the whole conversation
	if total > n {
		first = (total - n + step - 1) / step * step
	}
	start := max(first-h.base, 0)
	for start < len(h.msgs) && h.msgs[start].Role != agent.RoleUser {
		start++
	}
	return h.msgs[start:]
}

// answerOf looks for the user message of inbound id: recorded says it is
// in the history, and answer is the last assistant message after it (before
// the next user message), when there is one.
func (h *history) answerOf(id string) (answer string, recorded, answered bool) {
	for i := len(h.msgs) - 1; i >= 0; i-- {
		if h.msgs[i].Role != agent.RoleUser || h.msgs[i].InboundID != id {
			continue
		}
		for _, m := range h.msgs[i+1:] {
			if m.Role == agent.RoleUser {
				break
			}
			if m.Role == agent.RoleAssistant {
				answer, answered = m.Content, true
			}
		}
		return answer, true, answered
	}
	return "", false, false
}

// append records msgs in memory and appends them to the file.
func (hs *histories) append(h *history, msgs []agent.Message) error {
	h.keep(msgs...)
	var buf bytes.Buffer
	if h.torn {
		buf.WriteByte('\n') // end the torn line; it stays unreadable and skipped
	}
	now := hs.now()
	for _, m := range msgs {
		data, err := json.Marshal(record{Time: now, Message: m})
		if err != nil {
			return fmt.Errorf("encode history: %w", err)
		}
		buf.Write(data)
		buf.WriteByte('\n')
	}
	if err := os.MkdirAll(hs.dir, 0o700); err != nil {
		return fmt.Errorf("create sessions folder: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open history: %w", err)
	}
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("append to %s: %w", h.path, err)
	}
	h.torn = false
	return nil
}
