package telegram

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Markdown in answers is sent as Telegram HTML (parse_mode "HTML"),
// rendered as nanobot renders it: fenced code blocks as <pre>, inline
// code as <code>, headings as bold lines, **bold**, __bold__, *italic*,
// _italic_, ~~strikethrough~~, [links](https://...) with a web, tg: or
// mailto: address, "> " quotes as <blockquote>, and list bullets as "•".
//
// It is safe by construction: every character of the text that is not
// markup is escaped (&, <, >; quotes in attributes), and every tag pair
// wraps a span that holds no other tag's edge, so the tags always nest
// (a span whose markers cross another's stays as written). What Telegram
// still refuses is sent again as plain text (see Send).

// The markers that stand for what renderHTML recognised until the text
// is escaped: a held piece (code, a link) is \x00<index>\x00; a heading's
// bold and a quote's block are \x01...\x02 and \x03...\x04. The input's
// own such bytes are dropped first.
const (
	markHeld       = "\x00"
	markBold       = "\x01"
	markBoldEnd    = "\x02"
	markQuote      = "\x03"
	markQuoteEnd   = "\x04"
	markerControls = "\x00\x01\x02\x03\x04"
)

var (
	fenceRe      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)```([A-Za-z0-9_+#.-]*)[ \t]*\n?(.*?)```") })
	inlineCodeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([^`\n]+)`") })
	linkRe       = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\[([^\]\n]+)\]\(((?:https?://|tg://|mailto:)[^)\s]+)\)`)
	})
	heldRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("\x00([0-9]+)\x00") })
	headingRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#{1,6}[ \t]+(.+?)[ \t#]*$`) })
	quoteRe   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^>[ \t]?(.*)$`) })
	bulletRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([ \t]*)[-*+][ \t]+`) })
	// The inline spans: their content holds no tag, marker or newline,
	// so that the tags they make nest.
	spanRes = sync.OnceValue(func() []spanRe {
		return []spanRe{
			{regexp.MustCompile(`\*\*([^*<>\n\x01-\x04]+?)\*\*`), "<b>$1</b>"},
			{regexp.MustCompile(`__([^_<>\n\x01-\x04]+?)__`), "<b>$1</b>"},
			{regexp.MustCompile(`~~([^~<>\n\x01-\x04]+?)~~`), "<s>$1</s>"},
			{regexp.MustCompile(`(^|[^\w*])\*([^*\s<>\x01-\x04](?:[^*<>\n\x01-\x04]*[^*\s<>\x01-\x04])?)\*([^\w*]|$)`), "$1<i>$2</i>$3"},
			{regexp.MustCompile(`(^|[^\w])_([^_\s<>\x01-\x04](?:[^_<>\n\x01-\x04]*[^_\s<>\x01-\x04])?)_([^\w]|$)`), "$1<i>$2</i>$3"},
		}
	})
)

// spanRe is an inline Markdown span and its HTML.
type spanRe struct {
	re   *regexp.Regexp
	repl string
}

// renderHTML renders Markdown as Telegram HTML (see above).
func renderHTML(md string) string {
	md = strings.Map(func(r rune) rune {
		if strings.ContainsRune(markerControls, r) {
			return -1
		}
		return r
	}, md)
	var held, plain []string // each held piece as HTML, and as the plain text it shows
	hold := func(htmlPiece, plainText string) string {
		held, plain = append(held, htmlPiece), append(plain, plainText)
		return markHeld + strconv.Itoa(len(held)-1) + markHeld
	}
	md = fenceRe().ReplaceAllStringFunc(md, func(m string) string {
		sub := fenceRe().FindStringSubmatch(m)
		code := strings.TrimSuffix(sub[2], "\n")
		open := "<pre>"
		if sub[1] != "" {
			open = `<pre><code class="language-` + html.EscapeString(sub[1]) + `">`
			return hold(open+escapeText(code)+"</code></pre>", code)
		}
		return hold(open+escapeText(code)+"</pre>", code)
	})
	md = inlineCodeRe().ReplaceAllStringFunc(md, func(m string) string {
		code := m[1 : len(m)-1]
		return hold("<code>"+escapeText(code)+"</code>", code)
	})
	unheld := func(s string) string { // a held piece inside a link's text, as plain text
		return heldRe().ReplaceAllStringFunc(s, func(m string) string {
			i, _ := strconv.Atoi(m[1 : len(m)-1])
			return plain[i]
		})
	}
	md = linkRe().ReplaceAllStringFunc(md, func(m string) string {
		sub := linkRe().FindStringSubmatch(m)
		text := unheld(sub[1])
		return hold(`<a href="`+html.EscapeString(sub[2])+`">`+escapeText(text)+"</a>", text)
	})
	md = escapeText(blocks(md))
	for range 3 { // a span's closing edge may be the next one's opening edge: another pass finds it
		before := md
		for _, s := range spanRes() {
			md = s.re.ReplaceAllString(md, s.repl)
		}
		if md == before {
			break
		}
	}
	md = strings.NewReplacer(markBold, "<b>", markBoldEnd, "</b>", markQuote, "<blockquote>", markQuoteEnd, "</blockquote>").Replace(md)
	return heldRe().ReplaceAllStringFunc(md, func(m string) string {
		i, _ := strconv.Atoi(m[1 : len(m)-1])
		return held[i]
	})
}

// blocks marks the line-level Markdown: headings (bold), runs of quoted
// lines (one block each) and list bullets.
func blocks(md string) string {
	lines := strings.Split(md, "\n")
	inQuote := false
	for i, line := range lines {
		prefix := ""
		if m := quoteRe().FindStringSubmatch(line); m != nil {
			line = m[1]
			if !inQuote {
				prefix = markQuote
			}
			inQuote = true
		} else if inQuote {
			lines[i-1] += markQuoteEnd
			inQuote = false
		}
		if m := headingRe().FindStringSubmatch(line); m != nil {
			line = markBold + strings.NewReplacer("**", "", "__", "").Replace(m[1]) + markBoldEnd
		} else {
			line = bulletRe().ReplaceAllString(line, "$1• ")
		}
		lines[i] = prefix + line
	}
	if inQuote {
		lines[len(lines)-1] += markQuoteEnd
	}
	return strings.Join(lines, "\n")
}

// escapeText escapes text for Telegram HTML: &, < and > (the markers and
// held pieces have none of them).
func escapeText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
