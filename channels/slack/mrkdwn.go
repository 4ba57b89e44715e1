package slack

import (
	"regexp"
	"strings"
	"sync"

	"github.com/slack-go/slack/slackutilsx"
)

// Markdown that Slack's mrkdwn writes otherwise, outside code.
var (
	mdBold    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__`) })
	mdStrike  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`~~([^~\n]+)~~`) })
	mdHeading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t#]*$`) })
	mdLink    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[([^\]\n]+)\]\((https?://[^)\s]+)\)`) })
	mdCode    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)```.*?```|`[^`\n]+`") })
)

// mrkdwn turns the agent's text (Markdown, or plain) into Slack's mrkdwn:
// &, < and > escaped everywhere, as Slack wants them (slackutilsx's
// escaping), so that the text shows as written and cannot make a mention
// or a link of its own; and outside code spans and blocks, Markdown's
// **bold** and __bold__ as *bold*, ~~strike~~ as ~strike~, headings as a
// bold line, and [text](https://...) links as <https://...|text>.
func mrkdwn(text string) string {
	var b strings.Builder
	last := 0
	for _, loc := range mdCode().FindAllStringIndex(text, -1) {
		b.WriteString(prose(text[last:loc[0]]))
		b.WriteString(slackutilsx.EscapeMessage(text[loc[0]:loc[1]]))
		last = loc[1]
	}
	b.WriteString(prose(text[last:]))
	return b.String()
}

// prose is mrkdwn for text without code.
func prose(text string) string {
	text = slackutilsx.EscapeMessage(text)
	text = mdBold().ReplaceAllString(text, "*$1$2*")
	text = mdHeading().ReplaceAllStringFunc(text, func(s string) string {
		return "*" + strings.ReplaceAll(mdHeading().FindStringSubmatch(s)[1], "*", "") + "*"
	})
	text = mdStrike().ReplaceAllString(text, "~$1~")
	return mdLink().ReplaceAllStringFunc(text, func(s string) string {
		m := mdLink().FindStringSubmatch(s)
		return "<" + m[2] + "|" + strings.ReplaceAll(m[1], "|", "¦") + ">"
	})
}

// fences keeps code blocks whole across the parts of a long message: a
// part that ends inside a ``` block closes it, and the next part opens it
// again.
func fences(parts []string) []string {
	open := false
	for i, p := range parts {
		if open {
			p = "```\n" + p
		}
		if strings.Count(p, "```")%2 == 1 {
			p += "\n```"
			open = true
		} else {
			open = false
		}
		parts[i] = p
	}
	return parts
}
