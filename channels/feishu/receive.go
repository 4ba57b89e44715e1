package feishu

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/websocket"
	larkevent "github.com/larksuite/oapi-sdk-go/v3/event"
	"github.com/larksuite/oapi-sdk-go/v3/event/dispatcher"
	larkim "github.com/larksuite/oapi-sdk-go/v3/service/im/v1"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
)

// The receive path, for both modes:
//
//  1. the long connection (longconn.go) or the webhook (webhook.go) hands
//     the event to the SDK's dispatcher, which calls onMessage for an
//     im.message.receive_v1 event (others are answered and ignored);
//  2. onMessage drops what is not for the agent (the bot's own messages,
//     group messages that do not mention it, senders not in allowFrom)
//     and what is in hand or answered already (the journal's Seen);
//  3. inbound reads the message: its text, its attachments downloaded;
//  4. Base.HandleMessage journals it, hands it to the bus and reacts to
//     it (Working); only then does Feishu hear that the event was taken.
//
// An error on the way answers Feishu with a failure, and Feishu delivers
// the event again later.

// errNotReceiving answers events that arrive while the channel stops.
var errNotReceiving = errors.New("feishu channel not receiving; Feishu delivers the event again")

// startLongConn connects the long connection; credentials refused are an
// error, a network failure is retried in the background. c.mu is held.
func (c *Channel) startLongConn(ctx, run context.Context) error {
	l := &longConn{base: c.cfg.baseURL(), appID: c.cfg.AppID, appSecret: c.cfg.AppSecret, http: c.http,
		dialer: &websocket.Dialer{HandshakeTimeout: 10 * time.Second, Proxy: websocket.DefaultDialer.Proxy},
		handle: c.handleEvent, log: c.Logger(),
		reconnect: channels.Retry{Backoff: time.Second, MaxBackoff: 2 * time.Minute}}
	s, err := l.connect(ctx)
	if err != nil {
		if !channels.IsTemporary(err) || ctx.Err() != nil {
			return err
		}
		c.Logger().Warn("feishu long connection not connected yet; trying again in the background", "err", err)
	} else {
		c.Logger().Info("feishu long connection connected", "base", c.cfg.baseURL())
	}
	c.done.Go(func() { l.run(run, s) })
	return nil
}

// handleEvent hands an event's payload to the dispatcher and returns the
// status code of its answer: 200 for an event taken or of a type the
// channel does not handle, 500 for one to deliver again.
func (c *Channel) handleEvent(ctx context.Context, payload []byte) int {
	_, err := c.events.Do(ctx, payload)
	var unhandled *dispatcher.NotFoundEventHandlerErr
	switch {
	case err == nil:
		return 200
	case errors.As(err, &unhandled):
		c.Logger().Debug("feishu event of a type the channel does not handle", "err", err)
		return 200
	}
	c.Logger().Warn("feishu event not taken; Feishu delivers it again", "err", err)
	return 500
}

// onMessage takes one im.message.receive_v1 event (see the receive path
// above). A nil error answers Feishu that the event was taken.
func (c *Channel) onMessage(ctx context.Context, ev *larkim.P2MessageReceiveV1) error {
	if !c.isReceiving() {
		return errNotReceiving
	}
	if c.cfg.Mode == ModeWebhook && !c.tokenMatches(ev.EventV2Base) {
		return fmt.Errorf("event refused: its token does not match %s.verificationToken", keyPath)
	}
	if ev.Event == nil || ev.Event.Message == nil || ev.Event.Sender == nil {
		c.Logger().Warn("feishu message event without a message or a sender; ignored")
		return nil
	}
	m, sender := ev.Event.Message, ev.Event.Sender
	id, chat, chatType := deref(m.MessageId), deref(m.ChatId), deref(m.ChatType)
	from := ""
	if sender.SenderId != nil {
		from = deref(sender.SenderId.OpenId)
	}
	switch {
	case id == "" || chat == "" || from == "":
		c.Logger().Warn("feishu message event without message_id, chat_id or sender open_id; ignored", "message_id", id)
		return nil
	case deref(sender.SenderType) == "bot":
		return nil // the bot's own messages, and other bots'
	case isGroup(chatType) && !c.forBot(m):
		c.Logger().Debug("feishu group message not for the bot (groupPolicy mention)", "message_id", id)
		return nil
	case !c.IsAllowed(from):
		c.Logger().Warn("feishu message refused: sender not in allowFrom", "sender", from, "message_id", id,
			"hint", "add the sender's open_id to "+keyPath+".allowFrom")
		return nil
	}
	unlock, err := c.inFlight.Lock(ctx, id)
	if err != nil {
		return err
	}
	defer unlock()
	if c.Journal().Seen(id) {
		c.Logger().Debug("feishu message in hand or answered already; its event is a repeat", "message_id", id)
		return nil
	}
	in := c.inbound(ctx, m, from)
	if err := c.HandleMessage(ctx, in); err != nil && !errors.Is(err, channels.ErrNotAllowed) {
		return err
	}
	return nil
}

// tokenMatches checks the verification token of a webhook event.
func (c *Channel) tokenMatches(base *larkevent.EventV2Base) bool {
	token := ""
	if base != nil && base.Header != nil {
		token = base.Header.Token
	}
	return subtle.ConstantTimeCompare([]byte(token), []byte(c.cfg.VerificationToken.Reveal())) == 1
}

// inbound reads message m of sender from into a bus message: its text,
// its attachments (downloaded; a failed download is said in the text),
// the routing of its answer and, in a group with topicIsolation, the
// session of its topic.
func (c *Channel) inbound(ctx context.Context, m *larkim.EventMessage, from string) bus.InboundMessage {
	id, chat, chatType, msgType := deref(m.MessageId), deref(m.ChatId), deref(m.ChatType), deref(m.MessageType)
	text, media := c.content(ctx, id, msgType, deref(m.Content), m.Mentions)
	in := bus.InboundMessage{
		Channel:   ChannelName,
		SenderID:  from,
		ChatID:    from, // a private chat is answered to its user, as nanobot does
		Content:   text,
		Media:     media,
		Timestamp: time.Now().UTC(),
		ID:        id,
		Metadata:  map[string]any{"message_id": id, "chat_type": chatType, "msg_type": msgType},
	}
	if ms, err := strconv.ParseInt(deref(m.CreateTime), 10, 64); err == nil && ms > 0 {
		in.Timestamp = time.UnixMilli(ms).UTC()
	}
	for k, v := range map[string]string{"parent_id": deref(m.ParentId), "root_id": deref(m.RootId), "thread_id": deref(m.ThreadId)} {
		if v != "" {
			in.Metadata[k] = v
		}
	}
	if isGroup(chatType) {
		in.ChatID = chat
		if c.cfg.TopicIsolation {
			topic := deref(m.RootId)
			if topic == "" {
				topic = id
			}
			in.SessionKeyOverride = ChannelName + ":" + chat + ":" + topic
		}
	}
	return in
}

// forBot reports whether a group message is for the bot: every message
// with groupPolicy "open", else one that mentions the bot (or @all).
func (c *Channel) forBot(m *larkim.EventMessage) bool {
	if c.cfg.GroupPolicy == "open" || strings.Contains(deref(m.Content), "@_all") {
		return true
	}
	for _, mention := range m.Mentions {
		if c.isBot(mention) {
			return true
		}
	}
	return false
}

// isBot reports whether a mention is of the bot: by its open_id when
// known, else (nanobot's heuristic) a mention with an open_id and no
// user_id, which is how apps are mentioned.
func (c *Channel) isBot(m *larkim.MentionEvent) bool {
	if m == nil || m.Id == nil {
		return false
	}
	c.mu.Lock()
	bot := c.botOpenID
	c.mu.Unlock()
	open := deref(m.Id.OpenId)
	if bot != "" {
		return open == bot
	}
	return deref(m.Id.UserId) == "" && strings.HasPrefix(open, "ou_")
}

func isGroup(chatType string) bool { return chatType == "group" || chatType == "topic_group" }

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
