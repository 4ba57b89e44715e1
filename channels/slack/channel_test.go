package slack_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels/slack"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/slackfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// A direct message reaches the agent, and its answer is posted in the
// same conversation; the bot reacts to the message while it works, and
// marks it done after.
func TestDirectMessageInAnswerOut(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	ev := h.push(slackfake.Event{Channel: "D0ADA", User: "U0ADA", Text: "hello &lt;world&gt; &amp; all", ClientMsgID: "c-1"})

	in := h.taken.WaitFor(t, "the message", nil)
	assert.Equal(t, "slack", in.Channel)
	assert.Equal(t, "U0ADA", in.SenderID)
	assert.Equal(t, "D0ADA", in.ChatID, "a direct message is answered in the conversation, not in a thread")
	assert.Equal(t, "slack:D0ADA", in.SessionKey())
	assert.Equal(t, "hello <world> & all", in.Content, "Slack's escapes undone")
	assert.Equal(t, "D0ADA:"+ev.TS, in.ID)
	assert.Equal(t, map[string]any{"channel": "D0ADA", "ts": ev.TS, "channel_type": "im", "event_id": ev.EventID,
		"client_msg_id": "c-1"}, in.Metadata)

	r := h.posted("D0ADA", "", 1)[0]
	assert.Equal(t, "echo: hello &lt;world&gt; &amp; all", r.Text, "the answer's &, < and > escaped for mrkdwn")
	assert.Empty(t, r.ThreadTS)

	h.finished("D0ADA", ev.TS)
	assert.Equal(t, []slackfake.Reaction{
		{Channel: "D0ADA", TS: ev.TS, Name: "eyes"},
		{Channel: "D0ADA", TS: ev.TS, Name: "eyes", Removed: true},
		{Channel: "D0ADA", TS: ev.TS, Name: "white_check_mark"},
	}, h.fake.Reactions())
}

// A mention in a channel is answered in a thread under it; a message in
// that thread is the same conversation and is answered in the thread
// too; with replyInThread off, a top-level mention is answered in the
// channel.
func TestThreads(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	bot := "<@" + h.fake.BotUserID() + ">"
	top := h.push(slackfake.Event{Type: "app_mention", Channel: "C0GEN", Text: bot + " first"})
	first := h.taken.WaitFor(t, "first", nil)
	assert.Equal(t, "first", first.Content, "the mention of the bot is not part of the text")
	assert.Equal(t, "C0GEN:"+top.TS, first.ChatID)
	assert.Equal(t, "slack:C0GEN:"+top.TS, first.SessionKey(), "the thread is the conversation, as nanobot names it")
	assert.Equal(t, "channel", first.Metadata["channel_type"])
	assert.Equal(t, "first", h.posted("C0GEN", top.TS, 1)[0].Text[len("echo: "):])

	reply := h.push(slackfake.Event{Channel: "C0GEN", ThreadTS: top.TS, Text: bot + " second"})
	second := h.taken.WaitFor(t, "second", func(m bus.InboundMessage) bool { return m.Content == "second" })
	assert.Equal(t, first.SessionKey(), second.SessionKey())
	assert.Equal(t, top.TS, second.Metadata["thread_ts"])
	require.Len(t, h.posted("C0GEN", top.TS, 2), 2)
	h.finished("C0GEN", reply.TS)

	flat := newHarness(t, func(c *slack.Config) { c.ReplyInThread = false })
	flat.answer(channelhost.Echo)
	flat.push(slackfake.Event{Type: "app_mention", Channel: "C0GEN", Text: "<@" + flat.fake.BotUserID() + "> hi"})
	assert.Equal(t, "", flat.posted("C0GEN", "", 1)[0].ThreadTS)
	assert.Equal(t, "C0GEN", flat.taken.WaitFor(t, "the message", nil).ChatID)
}

// An answer without a thread to a conversation the metadata names goes
// to the metadata's thread; an answer to a user id goes to that user.
func TestSendTargets(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t)
	require.NoError(t, h.ch.Send(ctx, bus.OutboundMessage{Channel: "slack", ChatID: "C0GEN", Content: "in thread",
		Metadata: map[string]any{"channel": "C0GEN", "thread_ts": "1.1"}}))
	require.NoError(t, h.ch.Send(ctx, bus.OutboundMessage{Channel: "slack", ChatID: "C0OTHER", Content: "elsewhere",
		Metadata: map[string]any{"channel": "C0GEN", "thread_ts": "1.1"}}))
	require.NoError(t, h.ch.Send(ctx, bus.OutboundMessage{Channel: "slack", ChatID: "U0ADA", Content: "to a user"}))
	got := h.fake.Messages()
	require.Len(t, got, 3)
	assert.Equal(t, []string{"C0GEN 1.1", "C0OTHER ", "U0ADA "},
		[]string{got[0].Channel + " " + got[0].ThreadTS, got[1].Channel + " " + got[1].ThreadTS, got[2].Channel + " " + got[2].ThreadTS})
}

// With no reactEmoji and no doneEmoji, nothing is reacted.
func TestNoReactions(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *slack.Config) { c.ReactEmoji, c.DoneEmoji = "", "" })
	h.answer(channelhost.Echo)
	h.push(slackfake.Event{Text: "hi"})
	h.posted("D0DM", "", 1)
	assert.Empty(t, h.fake.Reactions())
}

// A Slack that cannot be reached at start does not stop the start: Socket
// Mode connects once it can. A connection Slack asks to refresh, or that
// breaks, is opened again, and events go on.
func TestConnectionTroubles(t *testing.T) {
	t.Parallel()
	fake := slackfake.New(slackfake.Options{})
	t.Cleanup(fake.Close)
	fake.FailNext(slackfake.CallOpen, slackfake.Failure{Status: 503})
	h := startHarness(t, fake, testConfig(fake, t.TempDir()))
	h.answer(channelhost.Echo)
	assert.Contains(t, h.logs.String(), "slack socket mode not connected yet; trying again in the background")
	h.push(slackfake.Event{Text: "one"})
	h.posted("D0DM", "", 1)

	for n, trouble := range []func(){fake.Disconnect, fake.DropConnections} {
		trouble()
		require.NoError(t, fake.WaitConnections(testkit.Ctx(t), n+2), "connection %d", n+2)
	}
	h.push(slackfake.Event{Text: "two"})
	assert.Len(t, h.posted("D0DM", "", 2), 2)
	assert.Contains(t, h.logs.String(), "slack socket mode connected again")
}
