package feishustub

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
)

// Reply is one message the bot "sent" to a Feishu chat: a line of the
// outbox file.
type Reply struct {
	Time    time.Time `json:"time"`
	ChatID  string    `json:"chat_id"`
	Content string    `json:"content"`
	ReplyTo string    `json:"reply_to,omitempty"`
}

// maxKept bounds the replies remembered per chat for GET /feishu/replies;
// the file keeps them all.
const maxKept = 1000

// outbox appends replies to a JSON-lines file (each line written whole
// with one O_APPEND write) and remembers recent ones per chat, waking
// readers waiting for a chat's next reply.
type outbox struct {
	path string

	mu     sync.Mutex
	file   *os.File
	chats  map[string][]Reply
	offset map[string]int           // replies dropped from the front of chats[x]
	wake   map[string]chan struct{} // closed when chat x gets a reply
}

func openOutbox(path string) (*outbox, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open feishu outbox: %w", err)
	}
	return &outbox{path: path, file: f, chats: map[string][]Reply{},
		offset: map[string]int{}, wake: map[string]chan struct{}{}}, nil
}

func (o *outbox) append(r Reply) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.file == nil {
		return fmt.Errorf("feishu outbox %s: closed", o.path)
	}
	if _, err := o.file.Write(line); err != nil {
		return fmt.Errorf("write feishu outbox %s: %w", o.path, err)
	}
	list := append(o.chats[r.ChatID], r)
	if len(list) > maxKept {
		o.offset[r.ChatID] += len(list) - maxKept
		list = list[len(list)-maxKept:]
	}
	o.chats[r.ChatID] = list
	if ch, ok := o.wake[r.ChatID]; ok {
		close(ch)
		delete(o.wake, r.ChatID)
	}
	return nil
}

// since returns the replies to chat after the first n, and a channel that
// is closed when the next one arrives.
func (o *outbox) since(chat string, n int) ([]Reply, <-chan struct{}) {
	o.mu.Lock()
	defer o.mu.Unlock()
	list := o.chats[chat]
	skip := max(0, n-o.offset[chat])
	var out []Reply
	if skip < len(list) {
		out = append(out, list[skip:]...)
	}
	ch, ok := o.wake[chat]
	if !ok {
		ch = make(chan struct{})
		o.wake[chat] = ch
	}
	return out, ch
}

// await returns the replies to chat after the first n, waiting up to
// wait for one when there are none yet; no replies (an empty list) when
// none came in time, ctx's error when ctx ended first. A reply to chat
// that is not past the first n (the reader asked for later ones) wakes it
// only to wait again.
func (o *outbox) await(ctx context.Context, chat string, n int, wait time.Duration) ([]Reply, error) {
	replies, wake := o.since(chat, n)
	if len(replies) > 0 || wait <= 0 {
		return append([]Reply{}, replies...), nil
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	for len(replies) == 0 {
		select {
		case <-wake:
			replies, wake = o.since(chat, n)
		case <-t.C:
			return []Reply{}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return replies, nil
}

func (o *outbox) close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.file == nil {
		return nil
	}
	err := o.file.Close()
	o.file = nil
	return err
}
