package channels

import (
	"strings"
	"unicode/utf8"
)

// separators are where Split prefers to cut, best first: between
// paragraphs, between lines, between words.
var separators = []string{"\n\n", "\n", " "}

// Split cuts text into parts of at most limit runes each, for a platform
// that caps the length of a message (pass its cap). It cuts between
// paragraphs where it can, else between lines, else between words, and
// only as a last resort inside a word (never inside a rune). A cut falls
// in the second half of a part when such a boundary exists there, so that
// parts stay long; the separator at a cut is dropped. Text within the
// limit is returned whole; empty text gives no parts. A limit below 1 is
// taken as 1.
func Split(text string, limit int) []string {
	limit = max(limit, 1)
	var parts []string
	for text != "" {
		if utf8.RuneCountInString(text) <= limit {
			parts = append(parts, text)
			break
		}
		// The window reaches one rune past the limit: a separator there
		// ends a part of exactly limit runes.
		cut, skip := cutPoint(text[:runeOffset(text, limit+1)])
		if skip == 0 {
			cut = runeOffset(text, limit)
		}
		if part := text[:cut]; part != "" {
			parts = append(parts, part)
		}
		text = text[cut+skip:]
	}
	return parts
}

// cutPoint returns where to cut window (a byte offset) and how many bytes
// of separator to drop there; skip is 0 when window has no separator to
// cut at.
func cutPoint(window string) (cut, skip int) {
	for _, late := range []bool{true, false} {
		for _, sep := range separators {
			i := strings.LastIndex(window, sep)
			if i > 0 && (!late || i >= len(window)/2) {
				return i, len(sep)
			}
		}
	}
	return 0, 0
}

// runeOffset returns the byte offset of rune n of s (len(s) if s is
// shorter).
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
