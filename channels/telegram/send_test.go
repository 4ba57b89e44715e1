package telegram_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/internal/telegramfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Markdown goes as Telegram HTML: the fake parses it as Telegram does,
// and the formatting arrives as entities; what is not markup arrives as
// written.
func TestAnswerMarkdown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	md := "# Result\n\n**sorted**: `1 < 2 & 3`\n- see [docs](https://x.test/?a=1&b=2)\n\n```go\nif a < b && c > d {}\n```"
	h.answer(func(bus.InboundMessage) string { return md })
	h.say("format")
	r := h.replies(501, 1)[0]
	assert.Equal(t, "Result\n\nsorted: 1 < 2 & 3\n• see docs\n\nif a < b && c > d {}", r.Text)
	assert.True(t, r.HasEntity("bold", "Result"))
	assert.True(t, r.HasEntity("bold", "sorted"))
	assert.True(t, r.HasEntity("code", "1 < 2 & 3"))
	assert.True(t, r.HasEntity("text_link", "docs"))
	assert.True(t, r.HasEntity("pre", "if a < b && c > d {}"))
}

// A long answer goes in parts, each within Telegram's 4,096 characters
// (UTF-16 code units), in order, nothing lost; a code block cut in two is
// closed and opened again.
func TestLongAnswerInParts(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	para := strings.Repeat("word 😀 ", 300) + "end." // 2,400 runes, 2,700 UTF-16 units
	long := strings.Repeat(para+"\n\n", 4) + "```\n" + strings.Repeat("code line\n", 500) + "```"
	h.answer(func(bus.InboundMessage) string { return long })
	h.say("tell me everything")
	h.taken.WaitFor(t, "the message", nil)
	h.finished(501, h.taken.All()[0].Metadata["message_id"].(int))
	parts := h.fake.Messages()
	require.Greater(t, len(parts), 4)
	var joined strings.Builder
	for _, p := range parts {
		assert.LessOrEqual(t, len(utf16(p.Text)), telegramfake.MaxMessageLength)
		joined.WriteString(p.Text)
	}
	assert.Equal(t, 4*strings.Count(para, "😀"), strings.Count(joined.String(), "😀"), "nothing lost")
	assert.Equal(t, 500, strings.Count(joined.String(), "code line"))
	last := parts[len(parts)-1]
	assert.True(t, strings.HasPrefix(last.Text, "code line"), "the code block goes on in the next part: %q", last.Text[:20])
	assert.Equal(t, "pre", last.Entities[0].Type, "as code")
}

// Markup Telegram refuses is sent again as plain text.
func TestRefusedMarkupSentPlain(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(func(bus.InboundMessage) string { return "**bold** and more" })
	h.fake.FailNext("sendMessage", telegramfake.Failure{Code: 400, Description: "Bad Request: can't parse entities: Unsupported start tag"})
	h.say("hi")
	r := h.replies(501, 1)[0]
	assert.Equal(t, "**bold** and more", r.Text)
	assert.Empty(t, r.ParseMode)
	assert.Contains(t, h.logs.String(), "it is sent as plain text")
}

// A 429's retry_after is honoured: Send says how long to wait, and the
// Manager waits that long before the next try.
func TestRateLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.fake.FailNext("sendMessage", telegramfake.Failure{Code: 429, RetryAfter: 1})
	err := h.ch.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: "telegram", ChatID: "501", Content: "now"})
	require.Error(t, err)
	assert.True(t, channels.IsTemporary(err))
	assert.Equal(t, time.Second, channels.RetryAfterOf(err))

	h.fake.FailNext("sendMessage", telegramfake.Failure{Code: 429, RetryAfter: 1})
	start := time.Now()
	require.NoError(t, h.bus.PublishOutbound(testkit.Ctx(t), bus.OutboundMessage{Channel: "telegram", ChatID: "501", Content: "later"}))
	assert.Equal(t, "later", h.replies(501, 1)[0].Text)
	assert.GreaterOrEqual(t, time.Since(start), time.Second, "sent again only after retry_after")
	assert.Contains(t, h.logs.String(), "send failed, retrying")
}

// When a later part of a long answer fails, the Manager sends the answer
// again, and the parts Telegram has are not sent twice.
func TestRetriedAnswerNotDuplicated(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	long := strings.Repeat("a", 4090) + "\n\n" + strings.Repeat("b", 10)
	h.fake.FailNext("sendMessage", telegramfake.Succeed, telegramfake.Failure{Code: 502, Description: "Bad Gateway"})
	require.NoError(t, h.bus.PublishOutbound(testkit.Ctx(t), bus.OutboundMessage{Channel: "telegram", ChatID: "501", Content: long}))
	got := h.replies(501, 2)
	assert.Equal(t, strings.Repeat("b", 10), got[1].Text)
	require.NoError(t, h.fake.WaitCalls(testkit.Ctx(t), "sendMessage", 3))
	assert.Len(t, h.fake.Messages(), 2, "the first part once: %+v", h.fake.Messages())
}

// What cannot be sent is an error that says why, and is not retried: a
// user who blocked the bot, a message without a chat.
func TestSendRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.fake.Block(501)
	err := h.ch.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: "telegram", ChatID: "501", Content: "hello"})
	require.Error(t, err)
	assert.False(t, channels.IsTemporary(err))
	assert.Contains(t, err.Error(), "the user blocked the bot")
	err = h.ch.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: "telegram", Content: "nowhere"})
	assert.ErrorContains(t, err, "without a chat id")

	h.fake.FailNext("sendMessage", telegramfake.Failure{Code: 400, Description: "Bad Request: group chat was upgraded to a supergroup chat", MigrateTo: -100777})
	require.NoError(t, h.ch.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: "telegram", ChatID: "-777", Content: "moved"}))
	assert.Equal(t, int64(-100777), h.fake.Messages()[0].ChatID, "the supergroup the group became")
}

// The files of an answer are sent by their kind; one that cannot be is
// said in the chat.
func TestFilesOut(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	dir := t.TempDir()
	photo, doc := filepath.Join(dir, "chart.png"), filepath.Join(dir, "report.pdf")
	require.NoError(t, os.WriteFile(photo, []byte("png"), 0o600))
	require.NoError(t, os.WriteFile(doc, []byte("pdf"), 0o600))
	require.NoError(t, h.ch.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: "telegram", ChatID: "501", Content: "here",
		Media: []string{photo, doc, filepath.Join(dir, "gone.txt")}}))
	got := h.fake.Messages()
	require.Len(t, got, 4)
	assert.Equal(t, []string{"photo", "document", "text", "text"}, []string{got[0].Kind, got[1].Kind, got[2].Kind, got[3].Kind})
	assert.Equal(t, "chart.png", got[0].FileName)
	assert.Equal(t, "png", string(got[0].File))
	assert.Equal(t, "[file not sent: gone.txt]", got[2].Text)
	assert.Equal(t, "here", got[3].Text)
}

func utf16(s string) []uint16 {
	var out []uint16
	for _, r := range s {
		if r > 0xFFFF {
			out = append(out, 0, 0)
		} else {
			out = append(out, 0)
		}
	}
	return out
}
