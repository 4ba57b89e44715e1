package feishu_test

import (
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/feishufake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Markdown goes as a card that renders it; plain text as text.
func TestAnswerFormats(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(func(in bus.InboundMessage) string { return in.Content })
	h.push(feishufake.Event{MessageID: "om_md", Content: feishufake.Text("# Title\n\n- one\n- **two**")})
	h.push(feishufake.Event{MessageID: "om_plain", Content: feishufake.Text("just words")})
	md := h.replies("om_md", 1)[0]
	assert.Equal(t, "interactive", md.MsgType)
	assert.Equal(t, "# Title\n\n- one\n- **two**", md.Text())
	assert.Equal(t, "text", h.replies("om_plain", 1)[0].MsgType)
}

// A long answer goes in parts, each within Feishu's limit, in order.
func TestLongAnswerInParts(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	para := strings.Repeat("word ", 800) + "end." // two fit in a part, three do not
	long := strings.Repeat(para+"\n\n", 5)
	h.answer(func(bus.InboundMessage) string { return long })
	h.push(feishufake.Event{MessageID: "om_1", Content: feishufake.Text("tell me everything")})
	parts := h.replies("om_1", 3)
	var joined []string
	for _, p := range parts {
		assert.LessOrEqual(t, utf8.RuneCountInString(p.Text()), 10_000)
		joined = append(joined, p.Text())
	}
	h.finished("om_1")
	assert.Len(t, h.fake.Messages(), 3)
	assert.True(t, strings.TrimSpace(long) == strings.Join(joined, "\n\n"), "nothing lost, nothing reordered")
}

// Server errors and rate limits are retried (the Manager's retry with the
// channel's temporary errors).
func TestSendRetries(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	h.fake.FailNext(feishufake.CallReply,
		feishufake.Failure{Status: http.StatusInternalServerError, Code: 2200, Msg: "internal error"},
		feishufake.Failure{Status: http.StatusTooManyRequests, Code: 99991400, Msg: "request trigger frequency limit",
			Header: http.Header{"X-Ogw-Ratelimit-Reset": {"0"}}})
	h.push(feishufake.Event{MessageID: "om_1", Content: feishufake.Text("hi")})
	assert.Equal(t, "echo: hi", h.replies("om_1", 1)[0].Text())
	assert.Equal(t, 2, strings.Count(h.logs.String(), "send failed, retrying"))
}

// When a later part of a long answer fails, the Manager sends the whole
// answer again: the parts Feishu has already are dropped by their uuid,
// and the chat sees every part once.
func TestRetriedAnswerNotDuplicated(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	long := strings.Repeat("a", 10_000) + " " + strings.Repeat("b", 10)
	h.answer(func(bus.InboundMessage) string { return long })
	h.fake.FailNext(feishufake.CallReply, feishufake.Succeed, feishufake.Failure{Status: 503, Code: 1, Msg: "busy"})
	h.push(feishufake.Event{MessageID: "om_1", Content: feishufake.Text("long please")})
	parts := h.replies("om_1", 2)
	h.finished("om_1")
	assert.Equal(t, 1, h.fake.Duplicates(), "the first part, sent again, was dropped by Feishu")
	assert.Len(t, h.fake.Messages(), 2)
	assert.Equal(t, strings.Repeat("b", 10), parts[1].Text())
	assert.NotEqual(t, parts[0].UUID, parts[1].UUID)
}

// An answer to a message Feishu no longer takes replies to goes to the
// chat as a new message; an answer without a message to reply to is a new
// message, to a group by chat_id or to a user by open_id.
func TestAnswerAsNewMessage(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	h.fake.FailNext(feishufake.CallReply, feishufake.Failure{Code: 230011, Msg: "the message was withdrawn"})
	h.push(feishufake.Event{MessageID: "om_gone", Sender: "ou_ada", Content: feishufake.Text("hi")})
	got, err := h.fake.WaitMessages(testkit.Ctx(t), 1, nil)
	require.NoError(t, err)
	assert.Equal(t, feishufake.Message{ID: got[0].ID, ChatID: "ou_ada", ReceiveIDType: "open_id", MsgType: "text",
		Content: `{"text":"echo: hi"}`, UUID: got[0].UUID}, got[0])

	for _, chat := range []string{"oc_group", "ou_bob"} {
		require.NoError(t, h.bus.PublishOutbound(testkit.Ctx(t), bus.OutboundMessage{Channel: "feishu", ChatID: chat, Content: "task done"}))
	}
	got, err = h.fake.WaitMessages(testkit.Ctx(t), 2, func(m feishufake.Message) bool { return m.Text() == "task done" })
	require.NoError(t, err)
	assert.Equal(t, []string{"chat_id", "open_id"}, []string{got[0].ReceiveIDType, got[1].ReceiveIDType})
}

// What the channel cannot do is said: files are named, not sent; a chat
// the bot is not in is an error that says so, and is not retried.
func TestSendRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	require.NoError(t, h.ch.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: "feishu", ChatID: "ou_ada", Content: "see file",
		Media: []string{"/tmp/out/x.png", "/tmp/out/report.pdf"}}))
	sent := h.fake.Messages()
	require.Len(t, sent, 1)
	assert.Equal(t, "see file\n\n(not attached, this channel cannot send files yet: x.png, report.pdf)", sent[0].Text())
	assert.Contains(t, h.logs.String(), "sending files is not supported yet")
	require.Error(t, h.ch.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: "feishu", Content: "nowhere"}))

	h.fake.FailNext(feishufake.CallCreate, feishufake.Failure{Code: 230002, Msg: "Bot is not in the chat"})
	err := h.ch.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: "feishu", ChatID: "oc_x", Content: "hello"})
	require.Error(t, err)
	assert.False(t, channels.IsTemporary(err))
	assert.Contains(t, err.Error(), "add the bot to the chat")
}
