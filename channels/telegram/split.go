package telegram

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/switchboard-dev/switchboard/channels"
)

// maxMessage is Telegram's cap on a message's text, in UTF-16 code units,
// once its entities are parsed: the rendered HTML of a part never shows
// more than the Markdown it came from, so parts of the Markdown within the
// cap are within it once rendered.
const maxMessage = 4096

// splitText cuts Markdown into parts within limit UTF-16 code units (as
// channels.Split cuts, at paragraphs, lines, then words). A part that
// ends inside a fenced code block is closed with a fence, and the next
// part opens with the same fence line, so that each part renders as code.
func splitText(text string, limit int) []string {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	reserve := 0
	if strings.Contains(text, "```") {
		for _, line := range strings.Split(text, "\n") {
			if isFence(line) {
				reserve = max(reserve, len(line)+len("\n\n```"))
			}
		}
	}
	inner := max(limit-reserve, limit/2)
	var parts []string
	for _, p := range channels.Split(text, inner) {
		parts = append(parts, fitUTF16(p, inner)...)
	}
	return balanceFences(parts)
}

// fitUTF16 cuts a part that is within limit runes but over limit UTF-16
// code units (it holds characters outside the Basic Multilingual Plane:
// emoji) into parts that fit.
func fitUTF16(part string, limit int) []string {
	n := utf16Len(part)
	if n <= limit {
		return []string{part}
	}
	runes := utf8.RuneCountInString(part)
	smaller := max(1, limit*runes/n)
	var out []string
	for _, p := range channels.Split(part, smaller) {
		out = append(out, fitUTF16(p, limit)...)
	}
	return out
}

// balanceFences closes a code block a part leaves open and opens it again
// in the next part.
func balanceFences(parts []string) []string {
	open := "" // the fence line of the code block open at the end of the previous part
	for i, p := range parts {
		reopen := open
		for _, line := range strings.Split(p, "\n") {
			if isFence(line) {
				if open == "" {
					open = strings.TrimSpace(line)
				} else {
					open = ""
				}
			}
		}
		if reopen != "" {
			p = reopen + "\n" + p
		}
		if open != "" {
			p += "\n```"
		}
		parts[i] = p
	}
	return parts
}

// isFence reports whether a line opens or closes a fenced code block (a
// line with a whole block, "```x```", does neither).
func isFence(line string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), "```") && strings.Count(line, "```")%2 == 1
}

// utf16Len is the length of s in UTF-16 code units, as Telegram counts.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}
