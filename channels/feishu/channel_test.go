package feishu_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/feishu"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/feishufake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A message over the long connection reaches the agent, and its answer
// goes back with the reply API to the message, in its chat; the bot
// reacts to the message while it works and withdraws the reaction after.
func TestMessageInAnswerOut(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	h.push(feishufake.Event{MessageID: "om_1", ChatID: "oc_dm", Sender: "ou_ada", Content: feishufake.Text("hello")})

	in := h.taken.WaitFor(t, "the message", nil)
	assert.Equal(t, "feishu", in.Channel)
	assert.Equal(t, "ou_ada", in.SenderID)
	assert.Equal(t, "ou_ada", in.ChatID, "a private chat is answered to its user, as nanobot does")
	assert.Equal(t, "hello", in.Content)
	assert.Equal(t, "om_1", in.ID)
	assert.Equal(t, "p2p", in.Metadata["chat_type"])

	r := h.replies("om_1", 1)[0]
	assert.Equal(t, "echo: hello", r.Text())
	assert.Equal(t, "text", r.MsgType)
	assert.Equal(t, "oc_dm", r.ChatID, "in the chat of the message answered")
	assert.NotEmpty(t, r.UUID)

	rx, err := h.fake.WaitReactions(testkit.Ctx(t), 2, nil)
	require.NoError(t, err)
	assert.Equal(t, feishufake.Reaction{MessageID: "om_1", ReactionID: rx[0].ReactionID, Emoji: "THUMBSUP"}, rx[0])
	assert.Equal(t, feishufake.Reaction{MessageID: "om_1", ReactionID: rx[0].ReactionID, Deleted: true}, rx[1], "withdrawn once answered")
}

// A group answer in a topic keeps to the topic, and each topic is its
// own conversation.
func TestGroupTopics(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	mention := []feishufake.Mention{{Key: "@_user_1", OpenID: h.fake.BotOpenID(), Name: "bot"}}
	h.push(feishufake.Event{MessageID: "om_t1", ChatID: "oc_group", ChatType: "group", Content: feishufake.Text("@_user_1 first"), Mentions: mention})
	h.push(feishufake.Event{MessageID: "om_t2", ChatID: "oc_group", ChatType: "group", RootID: "om_t1", ThreadID: "omt_1",
		Content: feishufake.Text("@_user_1 second"), Mentions: mention})
	first := h.taken.WaitFor(t, "first", func(m bus.InboundMessage) bool { return m.ID == "om_t1" })
	second := h.taken.WaitFor(t, "second", func(m bus.InboundMessage) bool { return m.ID == "om_t2" })
	assert.Equal(t, "oc_group", first.ChatID)
	assert.Equal(t, "first", first.Content, "the leading mention of the bot is not part of the text")
	assert.Equal(t, "feishu:oc_group:om_t1", first.SessionKey())
	assert.Equal(t, "feishu:oc_group:om_t1", second.SessionKey(), "a reply in the topic is the topic's conversation")
	assert.Equal(t, "omt_1", second.Metadata["thread_id"])
	h.replies("om_t1", 1)
	h.replies("om_t2", 1)
}

// With doneEmoji, an answered message keeps a reaction that says so; with
// no reactEmoji, nothing is added while it is worked on.
func TestReactions(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *feishu.Config) { c.DoneEmoji = "DONE" })
	h.answer(channelhost.Echo)
	h.push(feishufake.Event{MessageID: "om_1", Content: feishufake.Text("hi")})
	rx, err := h.fake.WaitReactions(testkit.Ctx(t), 3, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"THUMBSUP", "", "DONE"}, []string{rx[0].Emoji, rx[1].Emoji, rx[2].Emoji})
	assert.True(t, rx[1].Deleted)

	quiet := newHarness(t, func(c *feishu.Config) { c.ReactEmoji = "" })
	quiet.answer(channelhost.Echo)
	quiet.push(feishufake.Event{MessageID: "om_1", Content: feishufake.Text("hi")})
	quiet.replies("om_1", 1)
	assert.Empty(t, quiet.fake.Reactions())
}
