package telegram_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/telegram"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/telegramfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A message in a private chat reaches the agent with nanobot's sender id
// and metadata, and its answer goes back to the chat; the chat shows the
// bot typing, and the message carries the reaction until it is answered.
func TestMessageInAnswerOut(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	id := h.say("hello")
	in := h.taken.WaitFor(t, "the message", nil)
	assert.Equal(t, "telegram", in.Channel)
	assert.Equal(t, "501|ada", in.SenderID, "nanobot's id|username")
	assert.Equal(t, "501", in.ChatID)
	assert.Equal(t, "hello", in.Content)
	assert.Equal(t, "501:"+strconv.Itoa(id), in.ID, "chat and message id")
	assert.Equal(t, "telegram:501", in.SessionKey())
	assert.Equal(t, id, in.Metadata["message_id"])
	assert.Equal(t, "ada", in.Metadata["username"])
	assert.Equal(t, false, in.Metadata["is_group"])

	r := h.replies(501, 1)[0]
	assert.Equal(t, "echo: hello", r.Text)
	assert.Equal(t, "HTML", r.ParseMode)
	assert.Zero(t, r.ReplyTo, "no quote without replyToMessage")
	h.finished(501, id)
	require.NoError(t, h.fake.WaitChatActions(testkit.Ctx(t), 1, func(a telegramfake.ChatAction) bool {
		return a.ChatID == 501 && a.Action == "typing"
	}))
	assert.Equal(t, []telegramfake.Reaction{{ChatID: 501, MessageID: id, Emoji: "👀"}, {ChatID: 501, MessageID: id}},
		h.fake.Reactions(), "reactEmoji while worked on, taken back once answered")
	h.ch.Logger().Info("config", "cfg", h.cfg)
	assert.NotContains(t, h.logs.String(), h.fake.Token(), "the token is in no log, at debug level either")
}

// With replyToMessage, the answer quotes the message; without
// reactEmoji there is no reaction (the typing action stays).
func TestReplyToMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *telegram.Config) { c.ReplyToMessage, c.ReactEmoji = true, "" })
	h.answer(channelhost.Echo)
	id := h.say("quote me")
	assert.Equal(t, id, h.replies(501, 1)[0].ReplyTo)
	h.taken.WaitFor(t, "the message", nil)
	require.NoError(t, h.fake.WaitChatActions(testkit.Ctx(t), 1, nil))
	assert.Empty(t, h.fake.Reactions())
}

// In a group, with groupPolicy "mention", the bot takes what mentions it
// or answers it; "open" takes everything.
func TestGroupPolicy(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	group := int64(-1001)
	bot := telegramfake.User{ID: h.fake.BotID(), Username: h.fake.BotUsername(), IsBot: true}
	push := func(m telegramfake.Incoming) int {
		m.ChatID, m.From = group, ada
		_, id := h.fake.Push(m)
		return id
	}
	push(telegramfake.Incoming{Text: "just chatting"})
	mention := push(telegramfake.Incoming{Text: "@fake_bot sort 3 1 2",
		Entities: []telegramfake.Entity{{Type: "mention", Offset: 0, Length: 9}}})
	command := push(telegramfake.Incoming{Text: "/help@fake_bot now",
		Entities: []telegramfake.Entity{{Type: "bot_command", Offset: 0, Length: 14}}})
	reply := push(telegramfake.Incoming{Text: "and this?", ReplyTo: &telegramfake.Incoming{From: bot, Text: "an answer"}})
	push(telegramfake.Incoming{Text: "@other_bot hi", Entities: []telegramfake.Entity{{Type: "mention", Offset: 0, Length: 10}}})

	got := h.replies(group, 3)
	assert.Equal(t, []string{"echo: sort 3 1 2", "echo: /help now", "echo: [Reply to bot: an answer]\nand this?"},
		[]string{got[0].Text, got[1].Text, got[2].Text}, "the bot's name is not part of the text")
	in := h.taken.WaitFor(t, "the mention", func(m bus.InboundMessage) bool { return m.Metadata["message_id"] == mention })
	assert.Equal(t, "-1001", in.ChatID)
	assert.Equal(t, true, in.Metadata["is_group"])
	h.taken.WaitFor(t, "the command", func(m bus.InboundMessage) bool { return m.Metadata["message_id"] == command })
	h.taken.WaitFor(t, "the reply", func(m bus.InboundMessage) bool { return m.Metadata["message_id"] == reply })
	h.finished(group, reply)
	assert.Len(t, h.taken.All(), 3, "messages not for the bot are not handed over")

	open := newHarness(t, func(c *telegram.Config) { c.GroupPolicy = "open" })
	open.answer(channelhost.Echo)
	_, _ = open.fake.Push(telegramfake.Incoming{ChatID: group, From: ada, Text: "just chatting"})
	assert.Equal(t, "echo: just chatting", open.replies(group, 1)[0].Text)
}

// A forum topic is its own conversation, and its answers go to the
// topic.
func TestForumTopic(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *telegram.Config) { c.GroupPolicy = "open" })
	h.answer(channelhost.Echo)
	_, _ = h.fake.Push(telegramfake.Incoming{ChatID: -1002, IsForum: true, ThreadID: 77, From: ada, Text: "in a topic"})
	in := h.taken.WaitFor(t, "the message", nil)
	assert.Equal(t, "telegram:-1002:topic:77", in.SessionKey())
	r := h.replies(-1002, 1)[0]
	assert.Equal(t, 77, r.ThreadID)
}

// allowFrom matches the user id or the username, as nanobot's does; a
// refused sender's update is confirmed (not asked again) and not handed
// over.
func TestAllowFrom(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *telegram.Config) { c.AllowFrom = []string{"@Ada", "777"} })
	h.answer(channelhost.Echo)
	mallory := telegramfake.User{ID: 666, Username: "mallory"}
	bob := telegramfake.User{ID: 777}
	refused, _ := h.fake.Push(telegramfake.Incoming{From: mallory, Text: "let me in"})
	h.say("by username")
	last, _ := h.fake.Push(telegramfake.Incoming{From: bob, Text: "by id"})
	assert.Equal(t, "echo: by username", h.replies(501, 1)[0].Text)
	assert.Equal(t, "echo: by id", h.replies(777, 1)[0].Text)
	require.NoError(t, h.fake.WaitConfirmed(testkit.Ctx(t), last+1))
	assert.Greater(t, last, refused)
	assert.Len(t, h.taken.All(), 2)
	assert.Regexp(t, `sender not in allowFrom" .*sender=666\|mallory`, h.logs.String())
}

// Updates that carry no message from a user are confirmed and ignored.
func TestOtherUpdatesIgnored(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	h.fake.PushUpdate("edited_message", map[string]any{"message_id": 1, "date": 0, "chat": map[string]any{"id": 501, "type": "private"}})
	h.say("after")
	assert.Equal(t, "echo: after", h.replies(501, 1)[0].Text)
	assert.Len(t, h.taken.All(), 1)
}
