package telegram

import (
	"context"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/switchboard-dev/switchboard/bus"
)

// typingEvery is how often the typing action is sent again while a
// message is worked on: Telegram shows it for five seconds.
const typingEvery = 4 * time.Second

// maxTyping bounds how long one message shows the typing action.
const maxTyping = 10 * time.Minute

// Working implements channels.Progress: while the agent works on a
// message, the chat shows that the bot is typing (sent again every four
// seconds, as Telegram forgets it after five) and the message carries
// reactEmoji, as nanobot does; both end once the message is answered.
// A notice that fails is logged at debug: it is a courtesy.
func (c *Channel) Working(ctx context.Context, msg bus.InboundMessage) func(context.Context) {
	chat := chatRef(msg.ChatID)
	if chat == nil {
		return nil
	}
	thread := metaInt(msg.Metadata, "message_thread_id")
	c.mu.Lock()
	life := c.life
	if !c.started || life == nil || life.Err() != nil {
		c.mu.Unlock()
		return nil
	}
	stop := make(chan struct{})
	c.done.Add(1) // under c.mu, while started: before Stop waits
	c.mu.Unlock()
	c.typing(ctx, chat, thread)
	go func() {
		defer c.done.Done()
		tick := time.NewTicker(typingEvery)
		defer tick.Stop()
		limit := time.NewTimer(maxTyping)
		defer limit.Stop()
		for {
			select {
			case <-tick.C:
				ctx, cancel := context.WithTimeout(life, typingEvery)
				c.typing(ctx, chat, thread)
				cancel()
			case <-stop:
				return
			case <-life.Done():
				return
			case <-limit.C:
				return
			}
		}
	}()
	id := int(metaInt(msg.Metadata, "message_id"))
	reacted := c.cfg.ReactEmoji != "" && id != 0 && c.react(ctx, chat, id, c.cfg.ReactEmoji)
	return func(ctx context.Context) {
		close(stop)
		if reacted {
			c.react(ctx, chat, id, "")
		}
	}
}

// typing sends the typing action to a chat.
func (c *Channel) typing(ctx context.Context, chat any, thread int64) {
	_, err := c.bot.SendChatAction(ctx, &bot.SendChatActionParams{ChatID: chat, MessageThreadID: int(thread), Action: models.ChatActionTyping})
	if err != nil {
		c.Logger().Debug("telegram typing action not sent", "chat_id", chat, "err", c.apiError("sendChatAction", err))
	}
}

// react sets emoji as the bot's reaction to a message ("" takes it back)
// and reports whether it was set.
func (c *Channel) react(ctx context.Context, chat any, messageID int, emoji string) bool {
	p := &bot.SetMessageReactionParams{ChatID: chat, MessageID: messageID, Reaction: []models.ReactionType{}}
	if emoji != "" {
		p.Reaction = []models.ReactionType{{Type: models.ReactionTypeTypeEmoji, ReactionTypeEmoji: &models.ReactionTypeEmoji{Emoji: emoji}}}
	}
	if _, err := c.bot.SetMessageReaction(ctx, p); err != nil {
		c.Logger().Debug("telegram reaction not set", "chat_id", chat, "message_id", messageID, "emoji", emoji,
			"err", c.apiError("setMessageReaction", err))
		return false
	}
	return true
}
