package cli

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// safeText makes s safe to print on a terminal: every control character
// (C0, DEL and C1, ESC among them) and every byte that is not UTF-8 is
// shown escaped, as Go writes it ("\x1b", "\n", "\t", "\u009b", "\xff"),
// so text from the tree (a card's description, a message, a file name)
// can neither move the cursor, clear the screen, retitle the window nor
// break a table row. Everything else, backslashes included, is kept.
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

// isControl reports a C0 control, DEL or a C1 control.
func isControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r <= 0x9f)
}
