package feishu

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	larkim "github.com/larksuite/oapi-sdk-go/v3/service/im/v1"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
)

// Part limits, in runes: a text message's body may hold 150 KB, a card's
// 30 KB, and a rune takes up to 3 bytes (and more once escaped in JSON).
const (
	textLimit = 10_000
	cardLimit = 3_000
)

// markdown matches what a card renders and a text message would show raw:
// code fences, headings, bold, lists, links, tables.
var markdown = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?m)```|^#{1,6} |\\*\\*[^*\n]+\\*\\*|^\\s*[-*+] |^\\s*\\d+\\. |\\[[^\\]\n]+\\]\\([^)\n]+\\)|^\\|.+\\|\\s*$")
})

// Send delivers an answer. An answer to a Feishu message (its message_id
// in the metadata, as the agent loop keeps it, or ReplyTo) goes out with
// the reply API, in the thread of that message; anything else is a new
// message in ChatID (a group's oc_ id or a user's open_id). Text with
// Markdown goes as a card that renders it, plain text as text; long
// content in parts. Each part carries a uuid derived from the message
// and the part, so that Feishu drops a part sent again (the Manager's
// retry of the whole message, the agent's recorded answer sent again
// after a restart). Errors are temporary (channels.IsTemporary) when a
// retry may succeed.
//
// The channel does not upload files yet: the files of an answer (Media)
// are named in a last line of its text, and a warning is logged.
func (c *Channel) Send(ctx context.Context, msg bus.OutboundMessage) error {
	if msg.ChatID == "" {
		return errors.New("feishu channel: outbound message without a chat id")
	}
	content := strings.TrimSpace(msg.Content)
	if len(msg.Media) > 0 {
		c.Logger().Warn("feishu channel: sending files is not supported yet; their names are sent instead",
			"chat_id", msg.ChatID, "files", len(msg.Media))
		content = strings.TrimSpace(content + "\n\n" + notAttached(msg.Media))
	}
	if content == "" {
		return nil
	}
	msgType, limit := "text", textLimit
	if markdown().MatchString(content) {
		msgType, limit = "interactive", cardLimit
	}
	target := replyTarget(msg)
	inThread := c.cfg.ReplyToMessage && isGroup(metaString(msg.Metadata, "chat_type"))
	parts := channels.Split(content, limit)
	for i, part := range parts {
		body := encode(msgType, part)
		uuid := dedupKey(msg, target, i, part)
		var err error
		if target != "" {
			err = c.reply(ctx, target, msgType, body, inThread, uuid)
			if err != nil && !channels.IsTemporary(err) && !errors.Is(err, ErrCredentials) && ctx.Err() == nil {
				// The message answered is gone (withdrawn, or from a chat
				// the bot left): say it in the chat, as nanobot does.
				c.Logger().Warn("feishu reply refused; sending a new message instead", "reply_to", target, "err", err)
				err = c.create(ctx, msg.ChatID, msgType, body, uuid)
			}
		} else {
			err = c.create(ctx, msg.ChatID, msgType, body, uuid)
		}
		if err != nil {
			if i > 0 {
				err = fmt.Errorf("part %d of %d: %w", i+1, len(parts), err)
			}
			return err
		}
	}
	return nil
}

func (c *Channel) reply(ctx context.Context, to, msgType, body string, inThread bool, uuid string) error {
	req := larkim.NewReplyMessageReqBuilder().MessageId(to).Body(larkim.NewReplyMessageReqBodyBuilder().
		MsgType(msgType).Content(body).ReplyInThread(inThread).Uuid(uuid).Build()).Build()
	resp, err := c.client.Im.V1.Message.Reply(ctx, req)
	if resp != nil {
		return apiError("reply", err, resp.ApiResp, resp.Code, resp.Msg)
	}
	return apiError("reply", err, nil, 0, "")
}

func (c *Channel) create(ctx context.Context, chatID, msgType, body, uuid string) error {
	idType := "open_id"
	if strings.HasPrefix(chatID, "oc_") {
		idType = "chat_id"
	}
	req := larkim.NewCreateMessageReqBuilder().ReceiveIdType(idType).Body(larkim.NewCreateMessageReqBodyBuilder().
		ReceiveId(chatID).MsgType(msgType).Content(body).Uuid(uuid).Build()).Build()
	resp, err := c.client.Im.V1.Message.Create(ctx, req)
	if resp != nil {
		return apiError("send", err, resp.ApiResp, resp.Code, resp.Msg)
	}
	return apiError("send", err, nil, 0, "")
}

// notAttached is the line that names the files of an answer the channel
// cannot send.
func notAttached(media []string) string {
	names := make([]string, len(media))
	for i, m := range media {
		names[i] = filepath.Base(m)
	}
	return "(not attached, this channel cannot send files yet: " + strings.Join(names, ", ") + ")"
}

// replyTarget is the Feishu message an outbound message answers: the
// message_id of its metadata (the inbound message's, which the agent loop
// copies into its answer), else ReplyTo when it is a Feishu message id.
func replyTarget(msg bus.OutboundMessage) string {
	if id := metaString(msg.Metadata, "message_id"); strings.HasPrefix(id, "om_") {
		return id
	}
	if strings.HasPrefix(msg.ReplyTo, "om_") {
		return msg.ReplyTo
	}
	return ""
}

func metaString(md map[string]any, key string) string {
	s, _ := md[key].(string)
	return s
}

// encode returns the content JSON of a part.
func encode(msgType, part string) string {
	var v any = map[string]string{"text": part}
	if msgType == "interactive" {
		v = map[string]any{"config": map[string]bool{"wide_screen_mode": true},
			"elements": []map[string]string{{"tag": "markdown", "content": part}}}
	}
	data, _ := json.Marshal(v)
	return string(data)
}

// dedupKey is the uuid of a part: the same for the same part of the same
// message sent again, at most 50 characters as Feishu wants.
func dedupKey(msg bus.OutboundMessage, target string, i int, part string) string {
	h := sha256.New()
	md, _ := json.Marshal(msg.Metadata) // map keys are sorted
	for _, s := range []string{msg.ChatID, target, strconv.Itoa(i), part, string(md)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "sb-" + hex.EncodeToString(h.Sum(nil))[:40]
}
