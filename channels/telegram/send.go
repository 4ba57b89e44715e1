package telegram

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/switchboard-dev/switchboard/bus"
)

// Send delivers an answer to msg.ChatID (a chat id, or "@channelname"):
// its files first (see sendFile), then its text, in parts within
// Telegram's 4,096 characters, rendered from Markdown as Telegram HTML; a
// part whose markup Telegram refuses goes again as plain text. With
// replyToMessage, the answer quotes the message it answers (the
// message_id of its metadata, which the agent loop copies from the
// message); in a forum topic it goes to the topic. A group that became a
// supergroup is followed to its new id.
//
// Telegram has no key that makes a send idempotent: when a later piece
// of an answer fails, the Manager sends the whole answer again, and the
// pieces Telegram has already are skipped (remembered for ten minutes).
// Errors are temporary (channels.IsTemporary) when a retry may succeed,
// with the wait Telegram asks for on a 429 (channels.RetryAfterOf).
func (c *Channel) Send(ctx context.Context, msg bus.OutboundMessage) error {
	chat := chatRef(msg.ChatID)
	if chat == nil {
		return errors.New("telegram channel: outbound message without a chat id")
	}
	o := sendOpts{thread: int(metaInt(msg.Metadata, "message_thread_id"))}
	if c.cfg.ReplyToMessage {
		o.reply = int(metaInt(msg.Metadata, "message_id"))
	}
	parts := splitText(msg.Content, maxMessage)
	memo := len(parts)+len(msg.Media) > 1
	pieces := len(parts) + len(msg.Media)
	for i, path := range msg.Media {
		key := pieceKey(msg.ChatID, o, "file", i, path)
		if memo && c.sent.has(key) {
			continue
		}
		if err := c.sendFile(ctx, &chat, path, o); err != nil {
			return fmt.Errorf("file %d of %d (%s): %w", i+1, len(msg.Media), baseName(path), err)
		}
		if memo {
			c.sent.add(key)
		}
	}
	for i, part := range parts {
		key := pieceKey(msg.ChatID, o, "text", i, part)
		if memo && c.sent.has(key) {
			continue
		}
		if err := c.sendText(ctx, &chat, part, o); err != nil {
			if pieces > 1 {
				err = fmt.Errorf("part %d of %d: %w", i+1, len(parts), err)
			}
			return err
		}
		if memo {
			c.sent.add(key)
		}
	}
	return nil
}

// sendOpts is where the pieces of an answer go in the chat.
type sendOpts struct {
	thread int // message_thread_id: the forum topic, 0 for none
	reply  int // the message quoted, 0 for none
}

// replyParameters returns what quotes the message answered, or nil.
func (o sendOpts) replyParameters() *models.ReplyParameters {
	if o.reply == 0 {
		return nil
	}
	return &models.ReplyParameters{MessageID: o.reply, AllowSendingWithoutReply: true}
}

// sendText sends one part of an answer as HTML, or as plain text when
// Telegram refuses the markup.
func (c *Channel) sendText(ctx context.Context, chat *any, part string, o sendOpts) error {
	p := &bot.SendMessageParams{ChatID: *chat, Text: renderHTML(part), ParseMode: models.ParseModeHTML,
		MessageThreadID: o.thread, ReplyParameters: o.replyParameters()}
	err := c.call(ctx, chat, func(chat any) error {
		p.ChatID = chat
		_, err := c.bot.SendMessage(ctx, p)
		return err
	})
	if isParseError(err) {
		c.Logger().Warn("telegram refused the markup of an answer; it is sent as plain text", "chat_id", *chat, "err", c.apiError("sendMessage", err))
		p.Text, p.ParseMode = part, ""
		err = c.call(ctx, chat, func(chat any) error {
			p.ChatID = chat
			_, err := c.bot.SendMessage(ctx, p)
			return err
		})
	}
	return c.apiError("sendMessage", err)
}

// call makes a send to *chat, and once more to the supergroup a group
// became when Telegram says so (*chat is then the new id).
func (c *Channel) call(ctx context.Context, chat *any, send func(chat any) error) error {
	err := send(*chat)
	if to := migratedTo(err); to != 0 {
		c.Logger().Info("telegram group became a supergroup; sending to its new id", "chat_id", *chat, "new_chat_id", to)
		*chat = to
		err = send(to)
	}
	return err
}

// chatRef is a chat id as Telegram takes it: a number, or "@name" for a
// public channel; nil for none.
func chatRef(id string) any {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil
	}
	if n, err := strconv.ParseInt(id, 10, 64); err == nil {
		return n
	}
	return id
}

// metaInt reads a number of a message's metadata: an int as the channel
// wrote it, a float64 or a json.Number once it went through JSON (the
// journal), or a string.
func metaInt(md map[string]any, key string) int64 {
	switch v := md[key].(type) {
	case int:
		return int64(v)
	case int64:
		return v
	case float64:
		return int64(v)
	case json.Number:
		n, _ := v.Int64()
		return n
	case string:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	return 0
}

// pieceKey names one piece of an answer (a file or a part of its text)
// for sentParts.
func pieceKey(chat string, o sendOpts, kind string, i int, piece string) string {
	h := sha256.New()
	for _, s := range []string{chat, strconv.Itoa(o.thread), strconv.Itoa(o.reply), kind, strconv.Itoa(i), piece} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sentParts remembers the pieces of answers Telegram has taken, for
// sentFor, so that an answer sent again after a later piece failed does
// not repeat them.
type sentParts struct {
	mu sync.Mutex
	at map[string]time.Time
}

// sentFor is how long a piece is remembered; maxSent caps how many are.
const (
	sentFor = 10 * time.Minute
	maxSent = 4096
)

func (s *sentParts) has(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.at[key]
	return ok && time.Since(at) < sentFor
}

func (s *sentParts) add(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.at == nil {
		s.at = map[string]time.Time{}
	}
	if len(s.at) >= maxSent {
		for k, at := range s.at {
			if time.Since(at) >= sentFor || len(s.at) >= maxSent {
				delete(s.at, k)
			}
		}
	}
	s.at[key] = time.Now()
}
