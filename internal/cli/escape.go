package cli

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// safeText makes s safe to print on a terminal: every control character
// (C0, DEL and C1, ESC among them), every invisible format character
// (bidi controls such as U+202E, which reorder what follows; zero-width
// spaces; line and paragraph separators) and every byte that is not UTF-8
// is shown escaped, as Go writes it ("\x1b", "\n", "\t", "\u009b",
// "\u202e", "\xff"), so text from the tree (a card's description, a
// message, a file name) can neither move the cursor, clear the screen,
// retitle the window, break a table row nor show itself in another order
// than it is. Everything else, backslashes included, is kept.
func safeText(s string) string {
	clean := true
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f { // printable ASCII: no rune to decode
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if isControl(r) || (r == utf8.RuneError && n == 1) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80 && isControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case isControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// isControl reports a character safeText escapes: a C0 control, DEL, a C1
// control, or an invisible one that changes how text is shown (see
// isFormat).
func isControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0xad && isFormat(r))
}

// isFormat reports a format character (Unicode's Cf: the bidi controls
// U+061C, U+200E, U+200F, U+202A-U+202E and U+2066-U+2069, zero-width
// spaces, the soft hyphen, U+FEFF, ...) or a line or paragraph separator
// (U+2028, U+2029). The zero-width joiner and non-joiner (U+200C, U+200D)
// are kept, as emoji sequences and several scripts need them, and so are
// the tag characters of flag emoji (U+E0020-U+E007F).
func isFormat(r rune) bool {
	switch {
	case r == 0x200c || r == 0x200d || (r >= 0xe0020 && r <= 0xe007f):
		return false
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}
