package telegram

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/go-telegram/bot/models"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
)

// The receive path, for both modes:
//
//  1. the long poll (poll.go) or the webhook (webhook.go) hands each
//     update to take, one at a time, in order;
//  2. take drops what is not for the agent (updates that carry no
//     message, bots' messages, senders not in allowFrom, group messages
//     that neither mention the bot nor answer it under groupPolicy
//     "mention") and what is in hand or answered already (the journal's
//     Seen: Telegram giving an update again);
//  3. inbound reads the message: its text or caption, the message it
//     answers, its photo, document or voice note downloaded (media.go);
//  4. Base.HandleMessage journals it, hands it to the bus and shows the
//     typing notice (progress.go); only then does take return nil, and
//     Telegram hear that the update was taken (the next getUpdates
//     offset, the webhook's 200).
//
// An error on the way leaves the update with Telegram, which gives it
// again.

// take takes one update (see the receive path above). A nil error means
// Telegram may forget it.
func (c *Channel) take(ctx context.Context, u *models.Update) error {
	m := u.Message
	if m == nil || m.From == nil {
		c.Logger().Debug("telegram update without a message from a user; ignored", "update_id", u.ID)
		return nil
	}
	c.takeMu.Lock()
	defer c.takeMu.Unlock()
	sender := senderID(m.From)
	switch {
	case m.From.IsBot:
		return nil
	case !c.IsAllowed(sender):
		c.Logger().Warn("telegram message refused: sender not in allowFrom", "sender", sender, "chat_id", m.Chat.ID,
			"hint", "add the user id or username to "+keyPath+".allowFrom")
		return nil
	}
	var me *models.User
	if isGroup(m.Chat.Type) {
		var err error
		if me, err = c.identity(ctx); err != nil {
			return err
		}
		if !c.forBot(m, me) {
			c.Logger().Debug("telegram group message not for the bot (groupPolicy mention)", "chat_id", m.Chat.ID, "message_id", m.ID)
			return nil
		}
	}
	id := messageKey(m)
	if c.Journal().Seen(id) {
		c.Logger().Debug("telegram message in hand or answered already; its update is a repeat", "id", id, "update_id", u.ID)
		return nil
	}
	in := c.inbound(ctx, m, sender, me)
	if err := c.HandleMessage(ctx, in); err != nil && !errors.Is(err, channels.ErrNotAllowed) {
		return err
	}
	return nil
}

// senderID is nanobot's id of a sender: "<user id>|<username>", or the
// user id alone for a user without a username (see allowed).
func senderID(u *models.User) string {
	id := strconv.FormatInt(u.ID, 10)
	if u.Username != "" {
		return id + "|" + u.Username
	}
	return id
}

// messageKey is the id of a message for the journal and the agent: a
// message id is unique within its chat.
func messageKey(m *models.Message) string { return fmt.Sprintf("%d:%d", m.Chat.ID, m.ID) }

// inbound reads message m of sender into a bus message: its text (the
// message it answers first, as nanobot writes it), its media downloaded,
// the routing of its answer (the chat, the topic) and nanobot's metadata.
// me is the bot, known for group messages.
func (c *Channel) inbound(ctx context.Context, m *models.Message, sender string, me *models.User) bus.InboundMessage {
	var parts []string
	if r := m.ReplyToMessage; r != nil {
		if quoted := replyContext(r, me); quoted != "" {
			parts = append(parts, quoted)
		}
	}
	if text := strings.TrimSpace(stripBotName(m.Text, me)); text != "" {
		parts = append(parts, text)
	}
	if m.Caption != "" {
		parts = append(parts, m.Caption)
	}
	if l := m.Location; l != nil {
		parts = append(parts, fmt.Sprintf("[location: %v, %v]", l.Latitude, l.Longitude))
	}
	var media []string
	if line, path := c.attachment(ctx, m); line != "" {
		parts = append(parts, line)
		if path != "" {
			media = append(media, path)
		}
	}
	content := strings.Join(parts, "\n")
	if content == "" {
		content = "[empty message]"
	}
	md := map[string]any{"message_id": m.ID, "user_id": m.From.ID, "chat_type": string(m.Chat.Type),
		"is_group": isGroup(m.Chat.Type)}
	if m.From.Username != "" {
		md["username"] = m.From.Username
	}
	if m.From.FirstName != "" {
		md["first_name"] = m.From.FirstName
	}
	if m.Chat.IsForum {
		md["is_forum"] = true
	}
	if m.ReplyToMessage != nil {
		md["reply_to_message_id"] = m.ReplyToMessage.ID
	}
	in := bus.InboundMessage{
		Channel:   ChannelName,
		SenderID:  sender,
		ChatID:    strconv.FormatInt(m.Chat.ID, 10),
		Content:   content,
		Media:     media,
		Timestamp: time.Unix(int64(m.Date), 0).UTC(),
		ID:        messageKey(m),
		Metadata:  md,
	}
	if m.IsTopicMessage && m.MessageThreadID != 0 {
		md["message_thread_id"] = m.MessageThreadID
		in.SessionKeyOverride = fmt.Sprintf("%s:%d:topic:%d", ChannelName, m.Chat.ID, m.MessageThreadID)
	}
	return in
}

// replyContext is the line that says which message m answers, as nanobot
// writes it: "[Reply to @ada: the text]".
func replyContext(r *models.Message, me *models.User) string {
	text := r.Text
	if text == "" {
		text = r.Caption
	}
	if text == "" {
		return ""
	}
	if runes := []rune(text); len(runes) > 4000 {
		text = string(runes[:4000]) + "..."
	}
	switch u := r.From; {
	case u != nil && me != nil && u.ID == me.ID:
		return "[Reply to bot: " + text + "]"
	case u != nil && u.Username != "":
		return "[Reply to @" + u.Username + ": " + text + "]"
	case u != nil && u.FirstName != "":
		return "[Reply to " + u.FirstName + ": " + text + "]"
	}
	return "[Reply to: " + text + "]"
}

// forBot reports whether a group message is for the bot: every message
// with groupPolicy "open"; else one that mentions the bot (an @username
// mention, a mention of its user, a command addressed to it) or answers
// one of its messages.
func (c *Channel) forBot(m *models.Message, me *models.User) bool {
	if c.cfg.GroupPolicy == "open" {
		return true
	}
	if r := m.ReplyToMessage; r != nil && r.From != nil && r.From.ID == me.ID {
		return true
	}
	handle := "@" + strings.ToLower(me.Username)
	for _, t := range []struct {
		text string
		ents []models.MessageEntity
	}{{m.Text, m.Entities}, {m.Caption, m.CaptionEntities}} {
		for _, e := range t.ents {
			switch e.Type {
			case models.MessageEntityTypeMention:
				if strings.ToLower(entityText(t.text, e)) == handle {
					return true
				}
			case models.MessageEntityTypeTextMention:
				if e.User != nil && e.User.ID == me.ID {
					return true
				}
			case models.MessageEntityTypeBotCommand:
				if strings.HasSuffix(strings.ToLower(entityText(t.text, e)), handle) {
					return true
				}
			}
		}
		if me.Username != "" && strings.Contains(strings.ToLower(t.text), handle) {
			return true // nanobot's fallback, for a client that sent no entities
		}
	}
	return false
}

// entityText is the text an entity covers; its offsets count UTF-16 code
// units.
func entityText(text string, e models.MessageEntity) string {
	u := utf16.Encode([]rune(text))
	if e.Offset < 0 || e.Length < 0 || e.Offset+e.Length > len(u) {
		return ""
	}
	return string(utf16.Decode(u[e.Offset : e.Offset+e.Length]))
}

// stripBotName removes what addresses the bot from the start of a text:
// a leading "@bot" mention, and the "@bot" of a command ("/help@bot").
func stripBotName(text string, me *models.User) string {
	if me == nil || me.Username == "" {
		return text
	}
	handle := "@" + me.Username
	if len(text) >= len(handle) && strings.EqualFold(text[:len(handle)], handle) {
		text = strings.TrimLeft(text[len(handle):], " ,:")
	}
	if strings.HasPrefix(text, "/") {
		cmd, rest, _ := strings.Cut(text, " ")
		if name, to, ok := strings.Cut(cmd, "@"); ok && strings.EqualFold(to, me.Username) {
			text = strings.TrimSpace(name + " " + rest)
		}
	}
	return text
}

func isGroup(t models.ChatType) bool {
	return t == models.ChatTypeGroup || t == models.ChatTypeSupergroup
}
