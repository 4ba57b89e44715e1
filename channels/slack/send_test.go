package slack_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/switchboard-dev/switchboard/bus"
	"github.com/switchboard-dev/switchboard/channels"
	"github.com/switchboard-dev/switchboard/internal/channelhost"
	"github.com/switchboard-dev/switchboard/internal/slackfake"
	"github.com/switchboard-dev/switchboard/internal/testkit"
)

// Markdown goes as mrkdwn.
func TestAnswerFormat(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(func(bus.InboundMessage) string {
		return "# Plan\n\n**bold** and ~~gone~~, see [the docs](https://example.com/a?b=1&c=2) and `x<y`"
	})
	h.push(slackfake.Event{Text: "format"})
	assert.Equal(t, "*Plan*\n\n*bold* and ~gone~, see <https://example.com/a?b=1&amp;c=2|the docs> and `x&lt;y`",
		h.posted("D0DM", "", 1)[0].Text)
}

// A long answer goes in parts, each within Slack's limit, in order, in
// the thread; a code block cut between parts is closed and opened again.
func TestLongAnswerInParts(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	para := strings.Repeat("word ", 3000) + "end." // two fit in a part, three do not
	long := strings.Repeat(para+"\n\n", 5)
	h.answer(func(bus.InboundMessage) string { return long })
	ev := h.push(slackfake.Event{Type: "app_mention", Channel: "C0GEN", Text: "tell me everything"})
	parts := h.posted("C0GEN", ev.TS, 3)
	var joined []string
	for _, p := range parts {
		assert.LessOrEqual(t, utf8.RuneCountInString(p.Text), 39_000)
		joined = append(joined, p.Text)
	}
	h.finished("C0GEN", ev.TS)
	assert.Len(t, h.fake.Messages(), 3)
	assert.True(t, strings.TrimSpace(long) == strings.Join(joined, "\n\n"), "nothing lost, nothing reordered")

	code := "```\n" + strings.Repeat("line\n", 10_000) + "```"
	require.NoError(t, h.ch.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: "slack", ChatID: "D0CODE", Content: code}))
	blocks := h.posted("D0CODE", "", 2)
	assert.True(t, strings.HasSuffix(blocks[0].Text, "\n```"), "the first part closes the block")
	assert.True(t, strings.HasPrefix(blocks[1].Text, "```\n"), "the second opens it again")
}

// Server errors and rate limits are retried (the Manager's retry with the
// channel's temporary errors), a rate limit after the wait Slack asked.
func TestSendRetries(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	h.answer(channelhost.Echo)
	h.fake.FailNext(slackfake.CallPostMessage, slackfake.Failure{Status: 503},
		slackfake.Failure{Status: 429, Error: "ratelimited", RetryAfter: 1})
	h.push(slackfake.Event{Text: "hi"})
	assert.Equal(t, "echo: hi", h.posted("D0DM", "", 1)[0].Text)
	logs := h.logs.String()
	assert.Equal(t, 2, strings.Count(logs, "send failed, retrying"))
	assert.Contains(t, logs, "backoff=1s", "the wait Slack asked for")
}

// When a later part of a long answer fails, the Manager sends the answer
// again: the parts posted already are not posted twice.
func TestRetriedAnswerNotDuplicated(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	long := strings.Repeat("a", 39_000) + " " + strings.Repeat("b", 10)
	h.answer(func(bus.InboundMessage) string { return long })
	h.fake.FailNext(slackfake.CallPostMessage, slackfake.Succeed, slackfake.Failure{Status: 500})
	ev := h.push(slackfake.Event{Text: "long please"})
	parts := h.posted("D0DM", "", 2)
	h.finished("D0DM", ev.TS)
	assert.Len(t, h.fake.Messages(), 2)
	assert.Equal(t, strings.Repeat("b", 10), parts[1].Text)
	assert.Contains(t, h.logs.String(), "part 2 of 2")

	// The same answer sent again later, whole, is posted whole.
	require.NoError(t, h.ch.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: "slack", ChatID: "D0DM", Content: "again"}))
	require.NoError(t, h.ch.Send(testkit.Ctx(t), bus.OutboundMessage{Channel: "slack", ChatID: "D0DM", Content: "again"}))
	assert.Len(t, h.fake.Messages(), 4)
}

// What the channel cannot do is said: files are named, not sent; a
// channel the bot is not in, or a scope it lacks, is an error that says
// what to do, and is not retried.
func TestSendRefusals(t *testing.T) {
	t.Parallel()
	h := newHarness(t, nil)
	ctx := testkit.Ctx(t)
	require.NoError(t, h.ch.Send(ctx, bus.OutboundMessage{Channel: "slack", ChatID: "D0DM", Content: "see file",
		Media: []string{"/tmp/out/x.png", "/tmp/out/report.pdf"}}))
	sent := h.fake.Messages()
	require.Len(t, sent, 1)
	assert.Equal(t, "see file\n\n(not attached, this channel cannot send files yet: x.png, report.pdf)", sent[0].Text)
	assert.Contains(t, h.logs.String(), "sending files is not supported yet")
	require.Error(t, h.ch.Send(ctx, bus.OutboundMessage{Channel: "slack", Content: "nowhere"}))
	require.NoError(t, h.ch.Send(ctx, bus.OutboundMessage{Channel: "slack", ChatID: "D0DM", Content: "  "}), "nothing to say")

	h.fake.FailNext(slackfake.CallPostMessage, slackfake.Failure{Error: "not_in_channel"},
		slackfake.Failure{Error: "missing_scope", Needed: "chat:write.public"})
	err := h.ch.Send(ctx, bus.OutboundMessage{Channel: "slack", ChatID: "C0X", Content: "hello"})
	require.Error(t, err)
	assert.False(t, channels.IsTemporary(err))
	assert.Contains(t, err.Error(), "invite the bot to the channel")
	err = h.ch.Send(ctx, bus.OutboundMessage{Channel: "slack", ChatID: "C0X", Content: "hello"})
	assert.False(t, channels.IsTemporary(err))
	assert.Contains(t, err.Error(), "(needed: chat:write.public); add the scope")
}
